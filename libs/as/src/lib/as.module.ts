import { Module } from '@nestjs/common';

/**
 * The AS component. In this stage it serves its health check over the transport
 * (`rpc.as.Health.Check`) and HEALTH_PORT; its registry arrives with its own issue.
 */
@Module({})
export class AsModule {}
