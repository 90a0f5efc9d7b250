import { Chat } from './chat';

export default function Page() {
  return (
    <main>
      <h1>useChat on a durable run</h1>
      <p>
        Send a message, then reload mid-answer: the chat resumes the run, and the status beside it
        keeps its original times.
      </p>
      <Chat />
    </main>
  );
}
