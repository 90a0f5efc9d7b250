/** What the scripted model answers in every README route snippet the tests run. */
export const SNIPPET_ANSWER = 'Served through the README snippet, over real HTTP on loopback.';
