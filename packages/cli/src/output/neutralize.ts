/**
 * Characters a terminal acts on instead of showing: C0 controls but tab and newline (ESC
 * starts CSI / OSC sequences — OSC 52 writes the clipboard, OSC 0 retitles the window, CSI
 * moves the cursor or clears the screen; BEL rings; CR and BS overwrite what was printed), DEL,
 * the C1 controls U+0080–U+009F (U+009B is a one-character CSI, U+009D an OSC on terminals that
 * honour 8-bit controls), and the bidirectional overrides and isolates that reorder a line.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** U+2028 / U+2029 end a line for JavaScript readers of NDJSON; C1 and bidi as above. */
const JSON_UNSAFE = /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (char: string) => char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');

/**
 * Text a run supplied (the model's answer, a tool's name, an approval id), made safe to write to
 * a terminal: every control character is shown as what it is instead of acting — C0 as its
 * Unicode control picture (`␛` for ESC, `␇` for BEL), DEL as `␡`, C1 and the bidi controls as
 * `<U+009B>` — so `ESC ] 52 ; c ; …` prints as `␛]52;c;…`, readable and inert. A `\r\n` line end
 * is a newline. The same character is neutralised wherever a stream splits the text, since
 * each one is replaced on its own.
 *
 * @example
 * neutralize('hi\x1b]52;c;aGk=\x07'); // 'hi␛]52;c;aGk=␇'
 */
export function neutralize(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `<U+${hex(char)}>`;
  });
}

/**
 * One NDJSON line (no newline) for `--json`: `JSON.stringify` escapes C0 controls already; this
 * escapes C1, the bidi controls and the JavaScript line separators as well (`\u009b`), so the
 * output is inert in a terminal and lossless for a JSON reader.
 *
 * @example
 * jsonLine({ delta: '\u009b2J' }); // '{"delta":"\\u009b2J"}'
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (char) => `\\u${hex(char).toLowerCase()}`);
}
