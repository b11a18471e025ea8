import { Controller, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type ComponentName, healthSubject } from '@lorawan/api';
import { HealthService } from './health.service';

/** `rpc.<component>.Health.Check`: the gateway's readiness asks every component it fronts. */
export function healthController(component: ComponentName): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(private readonly health: HealthService) {}

    @MessagePattern(healthSubject(component))
    check() {
      return this.health.check();
    }
  }
  Object.defineProperty(HealthController, 'name', { value: `${component.toUpperCase()}HealthController` });
  return HealthController;
}
