import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { type ComponentName, healthSubject, rpcBySubject } from '@lorawan/api';
import { COMPONENT_NAME } from '../tokens';

/**
 * Fails the start of a component whose `@MessagePattern` handlers do not match the RPC table: a
 * pattern that is no RPC of the table, an RPC of another component, or an RPC served twice.
 * (A handler the table does not know would bypass the rights guard and the request pipe.)
 */
@Injectable()
export class HandlerContractCheck implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(COMPONENT_NAME) private readonly component: ComponentName,
  ) {}

  onApplicationBootstrap(): void {
    const served = new Map<string, string>();
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance) continue;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance) as object)) {
        const patterns = Reflect.getMetadata(PATTERN_METADATA, instance[method] as object) as unknown[] | undefined;
        for (const pattern of patterns ?? []) {
          const where = `${wrapper.name}.${method}`;
          if (typeof pattern !== 'string') throw new Error(`${where}: message patterns are RPC subjects (strings)`);
          const rpc = rpcBySubject(pattern);
          if (!rpc && pattern !== healthSubject(this.component)) throw new Error(`${where}: ${pattern} is not an RPC of the table`);
          if (rpc && rpc.component !== this.component) throw new Error(`${where}: ${rpc.name} belongs to ${rpc.component}, not ${this.component}`);
          const other = served.get(pattern);
          if (other) throw new Error(`${where}: ${pattern} is already served by ${other}`);
          served.set(pattern, where);
        }
      }
    }
  }
}
