import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type ListFrequencyPlansRequest, type ListFrequencyPlansResponse, rpcPattern } from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { describeFrequencyPlans } from '@lorawan/lorawan';

/** TTS `Configuration`: what the stack is configured with, open to anyone (the catalogue of `libs/lorawan`). */
@Controller()
export class ConfigurationController {
  @MessagePattern(rpcPattern('Configuration.ListFrequencyPlans'))
  listFrequencyPlans(@RpcRequest() req: ListFrequencyPlansRequest): ListFrequencyPlansResponse {
    return { frequency_plans: describeFrequencyPlans(req) };
  }
}
