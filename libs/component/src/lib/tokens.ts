export const COMPONENT_NAME = Symbol('COMPONENT_NAME');
