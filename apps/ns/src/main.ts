import { loadConfig } from '@lorawan/config';
import { runMain, startComponent } from '@lorawan/component';
import { createTransport } from '@lorawan/transport';
import { NsModule } from '@lorawan/ns';

runMain('ns', async () => {
  const config = loadConfig(process.env);
  if (!config.natsUrl) throw new Error('ns on its own needs NATS_URL; `npm start` runs every component embedded in one process');
  const transport = await createTransport(config, 'ns');
  const component = await startComponent(NsModule, { component: 'ns', config, transport });
  return async () => {
    await component.close();
    await transport.close();
  };
});
