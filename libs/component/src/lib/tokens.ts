export const COMPONENT_NAME = Symbol('COMPONENT_NAME');
/** The component's client for other components' RPCs (the data plane's internal RPCs): @lorawan/transport's RpcClient. */
export const COMPONENT_RPC_CLIENT = Symbol('COMPONENT_RPC_CLIENT');
