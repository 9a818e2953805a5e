// The typed platform client: one request helper over HTTP (ky), its configuration from the
// environment, and the errors it raises. I/O: workflow code must not import it.
export * from './client';
export * from './config';
export * from './errors';
