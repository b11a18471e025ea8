import { Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { get, session } from '../api/client';
import { ErrorAlert } from '../components/common';

/** Sign in with an API key: checked with `GET /auth_info`, then kept in sessionStorage only. */
export function SignInPage({ onSignIn }: { onSignIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    session.signIn(key);
    try {
      await get('/auth_info');
      onSignIn();
    } catch (err) {
      session.signOut();
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="lg" w={460} maw="100%">
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <Title order={3}>LoRaWAN console</Title>
            <Text size="sm" c="dimmed">
              Sign in with an API key (the admin key of `npm start` is in data/admin-api-key). It stays in this tab&apos;s session storage and is gone when you
              sign out or close the tab.
            </Text>
            <PasswordInput label="API key" placeholder="NNSXS.…" value={key} onChange={(e) => setKey(e.currentTarget.value)} required autoComplete="off" />
            <ErrorAlert error={error} title="Sign-in failed" />
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
