import { describe, expect, it } from 'vitest';
import { runlightCss } from '../runlight-css';

/**
 * The default theme's colours, computed (jsdom has no layout or colour cascade, so axe-core
 * cannot judge contrast here; the Chromium gallery runs axe on the rendered states as well).
 */

/** WCAG 2.x relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const rules = [...runlightCss.replace(/@media[^{]*\{/g, '').matchAll(/([^{}]+)\{([^{}]*)\}/g)].map(
  ([, selector, body]) => ({ selector: (selector ?? '').trim(), body: body ?? '' }),
);

const TEXT_PARTS = /part='(label|detail|elapsed)'|caption|\bth\b|\btd\b|:is\(th,td\)/;

describe('the default theme of the packaged components', () => {
  it('computes WCAG contrast the way WCAG defines it', () => {
    expect(contrast('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrast('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('never dims or recolours status text: it keeps the app text colour (AA where the app is)', () => {
    const textRules = rules.filter((rule) => TEXT_PARTS.test(rule.selector));
    expect(textRules.length).toBeGreaterThan(3);
    for (const rule of textRules) {
      expect(rule.body, rule.selector).not.toMatch(/opacity|filter|color-mix/);
      const colour = /(?:^|;)color:([^;]+)/.exec(rule.body)?.[1];
      if (colour !== undefined) expect(colour).toBe('var(--runlight-muted-foreground,inherit)');
    }
    // The rule the issue found: detail and elapsed text at 0.75 opacity (2.65:1 on finished runs).
    expect(runlightCss).not.toMatch(/part='(detail|elapsed)'\][^{]*\{[^}]*opacity/);
  });

  it('gives every indicator colour 3:1 or more against a light and a dark background', () => {
    const pairs = [...runlightCss.matchAll(/light-dark\((#[0-9a-f]{6}),(#[0-9a-f]{6})\)/g)];
    expect(pairs.length).toBeGreaterThanOrEqual(4);
    for (const [, light, dark] of pairs) {
      expect(contrast(light ?? '', '#ffffff'), light).toBeGreaterThanOrEqual(3);
      expect(contrast(dark ?? '', '#0a0a0a'), dark).toBeGreaterThanOrEqual(3);
    }
  });

  it('stops every animation under prefers-reduced-motion', () => {
    const animated = [...runlightCss.matchAll(/animation:runlight-(\w+)/g)].map((m) => m[1]);
    const reduced = [...runlightCss.matchAll(/@media \(prefers-reduced-motion:reduce\)\{([^@]*)/g)]
      .map((m) => m[1])
      .join('');
    expect(animated).toEqual(['spin', 'pulse']);
    expect(reduced.match(/animation:none/g)).toHaveLength(2);
  });
});
