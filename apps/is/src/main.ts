import { loadConfig } from '@lorawan/config';
import { runMain, startComponent } from '@lorawan/component';
import { createTransport } from '@lorawan/transport';
import { IsModule } from '@lorawan/is';

runMain('is', async () => {
  const config = loadConfig(process.env);
  if (!config.natsUrl) throw new Error('is on its own needs NATS_URL; `npm start` runs every component embedded in one process');
  const transport = await createTransport(config, 'is');
  const component = await startComponent(IsModule, { component: 'is', config, transport });
  return async () => {
    await component.close();
    await transport.close();
  };
});
