import { Chat } from './chat';

export default function Page() {
  return (
    <main>
      <h1>useChat on a durable run</h1>
      <p>
        Send a message, approve the tool call, reload mid-answer: the chat resumes the run, and the
        status and timeline beside it keep their original times.
      </p>
      <Chat />
    </main>
  );
}
