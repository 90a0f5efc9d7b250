import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { RunsListPage } from './runs-list-page';
import './styles.css';
import './registry.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>{window.location.pathname === '/runs' ? <RunsListPage /> : <App />}</StrictMode>,
);
