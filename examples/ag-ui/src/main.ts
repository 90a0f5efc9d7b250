import { RunlightAgent } from '@runlight/ag-ui/client';
import { activityOf, describeActivity } from './describe-activity';
import { runInUrl } from './run-in-url';

const status = document.getElementById('status')!;
const list = document.getElementById('messages')!;
const approval = document.getElementById('approval')!;
const record = document.getElementById('record')!;
const start = document.getElementById('start') as HTMLButtonElement;

const agent = new RunlightAgent({
  url: '/api/ag-ui',
  threadId: 'example-thread',
  ...runInUrl(),
});

function renderStatus() {
  const activity = activityOf(agent.messages);
  if (activity === null) return;
  status.dataset.activity = activity.kind;
  status.dataset.attempt = String(activity.attempt ?? 1);
  status.textContent = describeActivity(activity, Date.now());
  const operation = activity.operation as Record<string, unknown> | null;
  record.textContent =
    operation === null
      ? ''
      : `runlight.operation: ${[
          'kind',
          'phase',
          'step',
          'attempt',
          'startedAt',
          'requestStartedAt',
          'retryAt',
        ]
          .filter((key) => operation[key] !== undefined)
          .map((key) => `${key} ${operation[key]}`)
          .join(' · ')}`;
}

function renderMessages() {
  list.replaceChildren(
    ...agent.messages.flatMap((message) => {
      const element = document.createElement('div');
      element.className = `message ${message.role}`;
      element.dataset.id = message.id;
      element.dataset.testid = 'message';
      if (message.role === 'user' || message.role === 'reasoning') {
        element.textContent = String(message.content);
      } else if (message.role === 'assistant') {
        const calls = (message.toolCalls ?? []).map(
          (call) => `→ ${call.function.name}(${call.function.arguments})`,
        );
        element.textContent = [message.content ?? '', ...calls].filter(Boolean).join('\n');
        if (element.textContent === '') return [];
      } else if (message.role === 'tool') {
        element.className = 'message tool';
        element.textContent = `← ${message.content}`;
      } else {
        return [];
      }
      return [element];
    }),
  );
}

function renderApproval() {
  const interrupts = agent.isRunning ? [] : agent.pendingInterrupts;
  approval.hidden = interrupts.length === 0;
  approval.replaceChildren(
    ...interrupts.flatMap((interrupt) => {
      const text = document.createElement('p');
      text.textContent = interrupt.message ?? 'Approve?';
      const answer = (approved: boolean) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = approved ? 'Approve' : 'Deny';
        button.dataset.testid = approved ? 'approve' : 'deny';
        button.onclick = () => {
          approval.hidden = true;
          void follow(
            agent.runAgent({
              resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved } }],
            }),
          );
        };
        return button;
      };
      return [text, answer(true), answer(false)];
    }),
  );
}

function render() {
  renderStatus();
  renderMessages();
  renderApproval();
}

agent.subscribe({
  onMessagesChanged: render,
  onRunFinalized: () => queueMicrotask(render),
  onRunFailed: ({ error }) => {
    status.dataset.activity = 'error';
    status.textContent = `The stream failed: ${error.message}`;
  },
});

async function follow(running: Promise<unknown>) {
  start.disabled = true;
  await running.catch(() => {});
  render();
}

start.onclick = () => {
  agent.addMessage({
    id: crypto.randomUUID(),
    role: 'user',
    content: 'Please pay 5 for my order.',
  });
  void follow(agent.runAgent());
};

// A reload: resume the run from its snapshot, then live (never a replay).
if (agent.runId) void follow(agent.connectAgent());
// The elapsed seconds and the retry countdown tick on the page's clock.
setInterval(renderStatus, 250);
