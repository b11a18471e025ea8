import { Logger } from '@nestjs/common';
import { runMain } from '@lorawan/component';
import { startGateway } from '@lorawan/gateway';
import { connectMessaging } from '@lorawan/transport';

runMain('gateway', process.env, async ({ config, logger }) => {
  if (!config.natsUrl) throw new Error('the standalone gateway needs NATS_URL; use the stack app for embedded mode');
  const messaging = await connectMessaging(config, 'gateway');
  const gateway = await startGateway({ config, messaging, logger });
  new Logger('gateway').log({ port: gateway.port }, `HTTP API on :${gateway.port}/api/v3`);
  return {
    beginShutdown: () => gateway.beginShutdown(),
    close: async () => {
      await gateway.close();
      await messaging.close();
    },
  };
});
