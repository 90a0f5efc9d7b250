const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const LITERALS = new Set(['true', 'false', 'null']);

/**
 * Best-effort parse of a JSON prefix (a tool's input while it streams): the longest prefix
 * that can be closed into valid JSON, closed. A partial string value is kept; a partial key,
 * number or literal is cut. `undefined` when nothing usable was received yet.
 *
 * @example
 * parsePartialJson('{"city":"Par'); // { city: 'Par' }
 */
export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // fall through to the repair below
  }
  for (const candidate of closings(text)) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next, shorter candidate
    }
  }
  return undefined;
}

/** Candidates from longest to shortest: the open string closed, then the last safe cut. */
function closings(text: string): string[] {
  const stack: string[] = [];
  const closers = () => stack.slice().reverse().join('');
  let expectKey = false;
  let safe: string | undefined;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) {
        if (expectKey) break;
        // A cut escape sequence (`\` or `\u00`) cannot be closed; drop it.
        const body = text.slice(0, Math.min(j, text.length)).replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
        return [`${body}"${closers()}`, ...(safe === undefined ? [] : [safe])];
      }
      i = j + 1;
      if (expectKey) expectKey = false;
      else safe = text.slice(0, i) + closers();
      continue;
    }
    if (ch === '{' || ch === '[') {
      stack.push(ch === '{' ? '}' : ']');
      expectKey = ch === '{';
      i++;
      safe = text.slice(0, i) + closers();
      continue;
    }
    if (ch === '}' || ch === ']') {
      stack.pop();
      expectKey = false;
      i++;
      safe = text.slice(0, i) + closers();
      continue;
    }
    if (ch === ',') {
      expectKey = stack[stack.length - 1] === '}';
      i++;
      continue;
    }
    if (/[-0-9a-z]/.test(ch)) {
      let j = i;
      while (j < text.length && /[-+.0-9a-zA-Z]/.test(text[j]!)) j++;
      const token = text.slice(i, j);
      if (j < text.length || NUMBER.test(token) || LITERALS.has(token)) {
        safe = text.slice(0, j) + closers();
      }
      i = j;
      continue;
    }
    i++; // whitespace and ':'
  }
  return safe === undefined ? [] : [safe];
}
