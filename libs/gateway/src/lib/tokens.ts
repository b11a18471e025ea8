/** Components whose health `/readyz` includes. */
export const GATEWAY_READY_COMPONENTS = Symbol('GATEWAY_READY_COMPONENTS');

/** The @nestjs/microservices client proxy the gateway calls the components with. */
export const RPC_CLIENT = Symbol('RPC_CLIENT');

/** The largest request body the gateway accepts (bytes): what the transport carries, less room for the request's context. */
export const REQUEST_BODY_LIMIT = Symbol('REQUEST_BODY_LIMIT');
