import type { CliStream } from './io';

/**
 * Writes whole lines to a stream, with raw text (a streamed answer) between them and, on a TTY,
 * one status line at the bottom that is redrawn in place (`\r` + erase line) and kept below
 * everything printed. Off a TTY the status line is never written.
 */
export class LineWriter {
  readonly #stream: CliStream;
  readonly #live: boolean;
  #footer: string | null = null;
  #atLineStart = true;

  constructor(stream: CliStream, options: { live: boolean }) {
    this.#stream = stream;
    this.#live = options.live && stream.isTTY === true;
  }

  /** A whole line (a newline first when raw text left the cursor mid-line). */
  line(text: string): void {
    this.#clearFooter();
    if (!this.#atLineStart) this.#stream.write('\n');
    this.#stream.write(`${text}\n`);
    this.#atLineStart = true;
    this.#drawFooter();
  }

  /** Raw text, e.g. the assistant's deltas. */
  raw(text: string): void {
    if (text === '') return;
    this.#clearFooter();
    this.#stream.write(text);
    this.#atLineStart = text.endsWith('\n');
    this.#drawFooter();
  }

  /** Sets (or, with null, removes) the redrawn status line; a no-op off a TTY. */
  footer(text: string | null): void {
    if (!this.#live || text === this.#footer) return;
    this.#clearFooter();
    this.#footer = text;
    this.#drawFooter();
  }

  /** Ends mid-line raw text with a newline and removes the status line. */
  finish(): void {
    this.footer(null);
    if (!this.#atLineStart) this.#stream.write('\n');
    this.#atLineStart = true;
  }

  #clearFooter(): void {
    if (this.#live && this.#footer !== null && this.#atLineStart) this.#stream.write('\r\x1b[2K');
  }

  #drawFooter(): void {
    // Only below whole lines: mid-line, the answer's text owns the cursor.
    if (this.#live && this.#footer !== null && this.#atLineStart) this.#stream.write(this.#footer);
  }
}
