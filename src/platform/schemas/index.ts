export * from './common';
export * from './image';
export * from './gpu';
export * from './media';
export * from './decision';
export * from './batches';
export * from './account';
