import { loadConfig } from '@lorawan/config';
import { runMain, startComponent } from '@lorawan/component';
import { createTransport } from '@lorawan/transport';
import { JsModule } from '@lorawan/js';

runMain('js', async () => {
  const config = loadConfig(process.env);
  if (!config.natsUrl) throw new Error('js on its own needs NATS_URL; `npm start` runs every component embedded in one process');
  const transport = await createTransport(config, 'js');
  const component = await startComponent(JsModule, { component: 'js', config, transport });
  return async () => {
    await component.close();
    await transport.close();
  };
});
