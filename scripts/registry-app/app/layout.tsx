import type { ReactNode } from 'react';
import './globals.css';

export const metadata = { title: 'Runlight registry gallery' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <body className="bg-background text-foreground antialiased">{children}</body>
    </html>
  );
}
