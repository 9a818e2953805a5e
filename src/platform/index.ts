export * from './client';
export * from './config';
export * from './errors';
export * from './money';
export * from './paths';
export * from './validation';
export * as schemas from './schemas';
