/**
 * The props of AI Elements' `Conversation` and `Message` components that the recipe uses, as
 * `npx ai-elements add conversation message` writes them into an app
 * (`@/components/ai-elements/*`; AI Elements is shadcn-registry source, not an npm package).
 */
declare module '@/components/ai-elements/conversation' {
  import type { ComponentProps, ReactNode } from 'react';
  export function Conversation(props: ComponentProps<'div'>): ReactNode;
  export function ConversationContent(props: ComponentProps<'div'>): ReactNode;
}
declare module '@/components/ai-elements/message' {
  import type { ComponentProps, ReactNode } from 'react';
  export function Message(
    props: ComponentProps<'div'> & { from: 'user' | 'assistant' | 'system' },
  ): ReactNode;
  export function MessageContent(props: ComponentProps<'div'>): ReactNode;
}
