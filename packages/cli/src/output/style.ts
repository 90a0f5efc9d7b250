import { styleText } from 'node:util';
import type { ActivityKind } from '@runlight/client';
import type { CliIo, CliStream } from './io';

type Format = Parameters<typeof styleText>[0];

/** Colours a text, or leaves it plain. */
export interface Style {
  readonly enabled: boolean;
  paint(format: Format, text: string): string;
}

/**
 * Colour only on a TTY and without `NO_COLOR` (https://no-color.org), and never with `--json`
 * or `--no-color`; `node:util`'s `styleText`, no dependency.
 */
export function styleFor(stream: CliStream, io: Pick<CliIo, 'env'>, allowed: boolean): Style {
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
  const enabled = allowed && stream.isTTY === true && !noColor;
  return {
    enabled,
    paint: (format, text) => (enabled ? styleText(format, text, { validateStream: false }) : text),
  };
}

/** The colour of an activity's label: green done, red failed or stalled, yellow waits. */
export function activityColour(kind: ActivityKind): Format {
  switch (kind) {
    case 'completed':
      return 'green';
    case 'failed':
    case 'stalled':
      return 'red';
    case 'cancelled':
    case 'awaiting-approval':
    case 'not-created':
      return 'yellow';
    default:
      return 'cyan';
  }
}
