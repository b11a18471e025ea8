import { Module } from '@nestjs/common';
import { FormatterWorkerPool } from './formatter-worker-pool.service';
import { PayloadFormatter } from './payload-formatter.service';

/** Payload formatters (Cayenne LPP, JavaScript, …) and the worker threads that run their scripts. */
@Module({
  providers: [FormatterWorkerPool, PayloadFormatter],
  exports: [PayloadFormatter],
})
export class FormattersModule {}
