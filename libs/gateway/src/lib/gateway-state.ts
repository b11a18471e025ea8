import { Injectable } from '@nestjs/common';

/** Whether the gateway is shutting down: readiness turns false first, before it stops accepting. */
@Injectable()
export class GatewayState {
  private stopping = false;

  beginShutdown(): void {
    this.stopping = true;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }
}
