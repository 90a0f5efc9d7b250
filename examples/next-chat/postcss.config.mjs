// Tailwind 4 through PostCSS, as `create-next-app --tailwind` sets it up.
export default { plugins: { '@tailwindcss/postcss': {} } };
