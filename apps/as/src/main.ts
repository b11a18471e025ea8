import { loadConfig } from '@lorawan/config';
import { runMain, startComponent } from '@lorawan/component';
import { createTransport } from '@lorawan/transport';
import { AsModule } from '@lorawan/as';

runMain('as', async () => {
  const config = loadConfig(process.env);
  if (!config.natsUrl) throw new Error('as on its own needs NATS_URL; `npm start` runs every component embedded in one process');
  const transport = await createTransport(config, 'as');
  const component = await startComponent(AsModule, { component: 'as', config, transport });
  return async () => {
    await component.close();
    await transport.close();
  };
});
