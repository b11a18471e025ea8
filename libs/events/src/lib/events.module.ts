import { Module } from '@nestjs/common';

/**
 * The EVENTS component. In this stage it serves its health check over the transport
 * (`rpc.events.Health.Check`) and HEALTH_PORT; its registry arrives with its own issue.
 */
@Module({})
export class EventsModule {}
