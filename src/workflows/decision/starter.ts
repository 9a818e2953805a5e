// `start evaluateDecision`'s flags and how they make its input. Not workflow-safe: only the starter
// loads it (src/starter/workflow-inputs.ts).
import { defineStarter } from '../../starter/workflow-inputs';

export const starter = defineStarter({
  flags: {
    state: { flag: '--state <text>', description: 'decision content (text)' },
    image: { flag: '--image <url>', description: 'decision content image (repeatable)', repeatable: true },
    question: { flag: '--question <q>', description: 'decision question (repeatable)', repeatable: true },
    kind: { flag: '--kind <kind>', description: 'decision question kind (default yes_no, or choice with --options)' },
    options: { flag: '--options <a,b,c>', description: 'decision options' },
    thinking: { flag: '--thinking', description: 'decision: enable a reasoning round' },
  },
  inputs: {
    evaluateDecision: {
      usage: '--state TEXT [--image URL]... --question Q [--question Q]... [--kind K] [--options a,b,c] [--thinking]',
      input: (f) => ({
        state: f.image?.length ? [...(f.state ? [f.state] : []), ...f.image.map((image) => ({ image }))] : f.state,
        questions: (f.question ?? []).map((question) => ({
          kind: f.kind ?? (f.options ? 'choice' : 'yes_no'),
          question,
          options: f.options?.split(',').map((o) => o.trim()),
        })),
        thinking: f.thinking,
      }),
    },
  },
  examples: [
    'start evaluateDecision --state "A photo of a cat" --question "Is it an animal?" --question "Which one?" --options cat,dog --wait',
  ],
});
