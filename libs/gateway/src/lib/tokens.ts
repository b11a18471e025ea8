/** Components whose health `/readyz` includes. */
export const GATEWAY_READY_COMPONENTS = Symbol('GATEWAY_READY_COMPONENTS');
