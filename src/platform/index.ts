// The platform's API as data: schemas, validation, money, paths and bill windows. Workflow-safe
// (no I/O); the client that speaks it over HTTP is in src/platform-client.
export * from './bill-windows';
export * from './money';
export * from './paths';
export * from './validation';
export * as schemas from './schemas';
