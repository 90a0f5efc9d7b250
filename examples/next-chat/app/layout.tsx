import type { ReactNode } from 'react';
import './globals.css';
import './chat.css';

export const metadata = { title: 'Runlight × useChat' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
