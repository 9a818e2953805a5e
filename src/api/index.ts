export * from './names';
export * from './failures';
export * from './validate';
export * from './schemas';
