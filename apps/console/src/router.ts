import { useSyncExternalStore } from 'react';

/** The console's pages live under /console (the gateway answers index.html for each, so links and reloads work). */
export const BASE = '/console';

const subscribe = (notify: () => void) => {
  window.addEventListener('popstate', notify);
  return () => window.removeEventListener('popstate', notify);
};

/** The current path below /console, e.g. `/applications/app1/devices`. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname.slice(BASE.length) || '/');
}

export function navigate(path: string): void {
  window.history.pushState(null, '', BASE + path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** Matches `/applications/:app/devices/:dev` style patterns; the parameters decoded. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/');
  const s = path.replace(/\/+$/, '').split('/');
  if (p.length !== s.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return undefined;
  }
  return params;
}
