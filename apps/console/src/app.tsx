import { AppShell, Burger, Button, Group, NavLink, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { session } from './api/client';
import { ApplicationPage } from './pages/application';
import { ApplicationsPage } from './pages/applications';
import { DevicePage } from './pages/device';
import { GatewaysPage } from './pages/gateways';
import { RegisterDevicePage } from './pages/register-device';
import { SignInPage } from './pages/sign-in';
import { match, navigate, usePath } from './router';

function Page({ path }: { path: string }) {
  let p: Record<string, string> | undefined;
  if ((p = match('/applications/:app/devices/new', path))) return <RegisterDevicePage app={p.app} />;
  if ((p = match('/applications/:app/devices/:dev', path))) return <DevicePage app={p.app} dev={p.dev} />;
  if ((p = match('/applications/:app/:tab', path))) return <ApplicationPage app={p.app} tab={p.tab} />;
  if ((p = match('/applications/:app', path))) return <ApplicationPage app={p.app} tab="devices" />;
  if (match('/gateways', path)) return <GatewaysPage />;
  return <ApplicationsPage />;
}

export function App() {
  const path = usePath();
  const [signedIn, setSignedIn] = useState(() => session.key() !== null);
  const [opened, { toggle, close }] = useDisclosure();
  if (!signedIn) return <SignInPage onSignIn={() => setSignedIn(true)} />;
  const go = (to: string) => {
    close();
    navigate(to);
  };
  const signOut = () => {
    session.signOut();
    setSignedIn(false);
    navigate('/');
  };
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Title order={4}>LoRaWAN console</Title>
          </Group>
          <Button variant="subtle" size="xs" onClick={signOut}>
            Sign out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <NavLink label="Applications" active={path === '/' || path.startsWith('/applications')} onClick={() => go('/applications')} />
        <NavLink label="Gateways" active={path.startsWith('/gateways')} onClick={() => go('/gateways')} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Page path={path} />
      </AppShell.Main>
    </AppShell>
  );
}
