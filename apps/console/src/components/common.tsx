import { Alert, Anchor, Code, Loader, Text } from '@mantine/core';
import { type DependencyList, type MouseEvent, type ReactNode, useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import { BASE, navigate } from '../router';

/** An API error as the API gave it: status, canonical code, message, and each detail's namespace:name. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : new ApiError(0, undefined, error instanceof Error ? error.message : String(error));
  return (
    <Alert color="red" title={title ?? 'Error'} data-testid="api-error">
      <Text size="sm">
        {e.status ? `HTTP ${e.status}` : 'Network error'}
        {e.code !== undefined ? `, code ${e.code}` : ''}: {e.message}
      </Text>
      {e.details.map((d, i) => (
        <Text size="xs" key={i}>
          <Code>{d.namespace && d.name ? `${d.namespace}:${d.name}` : (d['@type'] ?? 'detail')}</Code>
          {d.attributes ? ` ${JSON.stringify(d.attributes)}` : ''}
          {d.cause?.name ? ` (cause ${d.cause.namespace}:${d.cause.name})` : ''}
        </Text>
      ))}
    </Alert>
  );
}

export function Link({ to, children }: { to: string; children: ReactNode }) {
  const onClick = (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <Anchor href={BASE + to} onClick={onClick}>
      {children}
    </Anchor>
  );
}

export function Json({ value }: { value: unknown }) {
  return (
    <Code block style={{ maxHeight: 400, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

/** Loads with `load` whenever `deps` change: the value, the API's error, and a reload. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): { data?: T; error?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export const Loading = () => <Loader size="sm" />;
