import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type CallerIdentity, type GetGatewayRequest, RPCS, type RpcDefinition, rpcCorrelationId } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { StackError } from '@lorawan/errors';
import { Authenticator } from '../authenticator';
import { sendError } from '../http-reply';
import { RouteMetrics } from '../route-metrics';
import { RpcForwarder } from '../rpc-forwarder';
import { encodeUpdateInfoResponse, parseUpdateInfoRequest } from './update-info';
import {
  CUPS_GATEWAY_PATHS,
  type CupsGateway,
  type CupsSettings,
  ErrCupsParse,
  ErrCupsUnauthenticated,
  ErrFieldLength,
  updateInfoAnswer,
} from './update-info-answer';

export const UPDATE_INFO_PATH = '/update-info';

/** The first certificate of a PEM file, as DER (what a credentials segment carries as trust). */
function trustOf(file: string | undefined): Buffer | undefined {
  return file ? new X509Certificate(readFileSync(file)).raw : undefined;
}

/**
 * `POST /update-info`: the CUPS server of LoRa Basics Station gateways (TTS
 * `pkg/basicstation/cups`), at the HTTP edge's root as TTS serves it. The station authenticates
 * with a gateway API key (`Authorization` header, "Bearer" optional; its `cups.key`); the gateway
 * is found by the request's `router` EUI and its CUPS fields read over the transport with that
 * key, so the IS checks RIGHT_GATEWAY_INFO and, for the secrets, RIGHT_GATEWAY_READ_SECRETS. The
 * answer is the binary `update-info` response (see `updateInfoAnswer`). Errors in the API's shape;
 * nothing of the secrets or the key is logged.
 */
@Injectable()
export class UpdateInfoRoute {
  private readonly logger = new Logger('CUPS');
  private readonly settings: CupsSettings;

  constructor(
    private readonly auth: Authenticator,
    private readonly forwarder: RpcForwarder,
    @Inject(STACK_CONFIG) config: StackConfig,
  ) {
    const { lnsUri, lnsTrustFile, trustFile } = config.cups;
    this.settings = { defaultLnsUri: lnsUri, lnsTrust: trustOf(lnsTrustFile), cupsTrust: trustOf(trustFile) };
  }

  register(fastify: FastifyInstance, bodyLimit: number): void {
    fastify.route({
      method: 'POST',
      url: UPDATE_INFO_PATH,
      bodyLimit,
      config: { route: UPDATE_INFO_PATH, metrics: new RouteMetrics('POST', UPDATE_INFO_PATH) },
      handler: (req, reply) => this.handle(req, reply),
    });
  }

  private async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      const body = parseUpdateInfoRequest(parseJson(req.body));
      if ('error' in body) throw ErrCupsParse.with({ reason: body.error });
      const header = req.headers.authorization?.trim();
      if (!header) throw ErrCupsUnauthenticated.with();
      const authorization = /^bearer /i.test(header) ? header : `Bearer ${header}`;

      const lookup = RPCS['GatewayRegistry.GetIdentifiersForEUI'];
      const key = await this.auth.authenticateEntity(authorization, undefined, req.id);
      req.callerId = key.id;
      const ids = (await this.forward(lookup, { eui: body.router }, key, req.id)) as { gateway_id: string };

      const get = RPCS['GatewayRegistry.Get'];
      const request: GetGatewayRequest = { gateway_ids: { gateway_id: ids.gateway_id }, field_mask: { paths: [...CUPS_GATEWAY_PATHS] } };
      const caller = await this.auth.authenticate(authorization, get, request, req.id);
      const gateway = (await this.forward(get, request, caller, req.id)) as CupsGateway;

      const answer = updateInfoAnswer(body, gateway, this.settings);
      if (answer instanceof StackError) throw answer;
      await this.recordStation(authorization, gateway, cupsAttributes(body, new Date()), req.id);
      const encoded = encodeUpdateInfoResponse(answer);
      if (!Buffer.isBuffer(encoded)) throw ErrFieldLength.with({ reason: encoded.error });
      void reply.code(200).header('content-type', 'application/octet-stream').send(encoded);
    } catch (err) {
      sendError(reply, err, (fields, message) => this.logger.error({ ...fields, request_id: req.id, route: UPDATE_INFO_PATH }, message));
    }
  }

  /**
   * What the station said about itself, in the gateway's attributes (TTS: `cups-last-seen`,
   * `cups-station`, `cups-model`, `cups-package`), through GatewayRegistry.Update with the
   * station's key. Best effort: a key without RIGHT_GATEWAY_SETTINGS_BASIC, or attributes already
   * full, leave them as they are (logged) and the station still gets its answer.
   */
  private async recordStation(authorization: string, gateway: CupsGateway, attributes: Record<string, string>, requestId: string): Promise<void> {
    const update = RPCS['GatewayRegistry.Update'];
    const request = { gateway: { ids: gateway.ids, attributes: { ...gateway.attributes, ...attributes } }, field_mask: { paths: ['attributes'] } };
    try {
      const caller = await this.auth.authenticate(authorization, update, request, requestId);
      await this.forward(update, request, caller, requestId);
    } catch (err) {
      const reason = err instanceof StackError ? `${err.namespace}:${err.errorName}` : 'unknown';
      this.logger.warn({ request_id: requestId, gateway_id: gateway.ids.gateway_id, reason }, 'CUPS: station attributes not recorded');
    }
  }

  private async forward(rpc: RpcDefinition, request: object, caller: CallerIdentity, requestId: string): Promise<unknown> {
    return (await this.forwarder.forward(rpc, request, { request_id: requestId, correlation_ids: [rpcCorrelationId(rpc, requestId)], caller })).body;
  }
}

/** The station's attributes as TTS records them (values cut to the contract's 200 characters). */
export function cupsAttributes(req: { station?: string; model?: string; package?: string }, now: Date): Record<string, string> {
  const attributes: Record<string, string> = { 'cups-last-seen': now.toISOString().replace(/\.\d{3}Z$/, 'Z') };
  if (req.station) attributes['cups-station'] = req.station.slice(0, 200);
  if (req.model) attributes['cups-model'] = req.model.slice(0, 200);
  if (req.package) attributes['cups-package'] = req.package.slice(0, 200);
  return attributes;
}

/** The body as JSON (bodies reach routes as text); `parse` when it is none. */
function parseJson(body: unknown): unknown {
  if (typeof body !== 'string') return body ?? {};
  try {
    return JSON.parse(body) as unknown;
  } catch (err) {
    throw ErrCupsParse.with({ reason: (err as Error).message });
  }
}
