import { describe, expect, it } from 'vitest';
import * as client from '../client/index';
import * as main from '../index';

/**
 * Every value each entry of `@runlight/ag-ui` exports: a name added or removed here is a
 * deliberate change to the package's surface (with a changeset).
 */
const SURFACE: Record<string, readonly string[]> = {
  '@runlight/ag-ui': [
    'AG_UI_MESSAGE_PART',
    'OPERATION_ACTIVITY_TYPE',
    'activityMessageIdOf',
    'closingEvents',
    'createAgUiRoute',
    'endEventOf',
    'eventsBetween',
    'fromStoredConversation',
    'interruptIdOf',
    'operationActivityOf',
    'parseInterruptId',
    'reopeningEvents',
    'runViewOf',
    'snapshotMessagesOf',
    'toModelMessages',
    'toStoredConversation',
  ],
  '@runlight/ag-ui/client': ['RunlightAgent'],
};

describe('public surface', () => {
  it.each([
    ['@runlight/ag-ui', main],
    ['@runlight/ag-ui/client', client],
  ] as const)('%s exports exactly its documented names', (name, module) => {
    expect(Object.keys(module).sort()).toEqual([...SURFACE[name]!].sort());
  });
});
