import { loadConfig } from '@lorawan/config';
import { runMain, startComponent } from '@lorawan/component';
import { createTransport } from '@lorawan/transport';
import { EventsModule } from '@lorawan/events';

runMain('events', async () => {
  const config = loadConfig(process.env);
  if (!config.natsUrl) throw new Error('events on its own needs NATS_URL; `npm start` runs every component embedded in one process');
  const transport = await createTransport(config, 'events');
  const component = await startComponent(EventsModule, { component: 'events', config, transport });
  return async () => {
    await component.close();
    await transport.close();
  };
});
