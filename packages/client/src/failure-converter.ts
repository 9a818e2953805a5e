// Loaded by path (the data converter's failureConverterPath) in the worker's workflow sandbox and in clients:
// failures' messages and stack traces go into the failure's encoded attributes, which the payload codec encrypts,
// since a refusal's message can quote a prompt. Plain code only: the sandbox loads it.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
