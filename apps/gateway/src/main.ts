import { Logger } from '@nestjs/common';
import { loadConfig } from '@lorawan/config';
import { runMain } from '@lorawan/component';
import { startGateway } from '@lorawan/gateway';
import { createTransport } from '@lorawan/transport';

runMain('gateway', async () => {
  const config = loadConfig(process.env);
  if (!config.natsUrl) throw new Error('the standalone gateway needs NATS_URL; use the stack app for embedded mode');
  const transport = await createTransport(config, 'gateway');
  const gateway = await startGateway({ config, transport });
  new Logger('gateway').log(`listening on :${gateway.port}`);
  return async () => {
    await gateway.close();
    await transport.close();
  };
});
