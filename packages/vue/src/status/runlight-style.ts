import { onMounted } from 'vue';
import { runlightStatusCss } from './runlight-css';

/**
 * Inserts the status components' default styles into the document once, when a component
 * that wants them mounts (never on the server: put `runlightStatusCss` in the head there).
 */
export function useRunlightStyle(wanted: () => boolean): void {
  onMounted(() => {
    if (!wanted() || document.querySelector('style[data-runlight-style="status"]') !== null) return;
    const style = document.createElement('style');
    style.setAttribute('data-runlight-style', 'status');
    style.textContent = runlightStatusCss;
    document.head.append(style);
  });
}
