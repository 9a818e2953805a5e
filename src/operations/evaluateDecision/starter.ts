import { defineStarter } from '../../cli/flags';

export const starter = defineStarter({
  flags: {
    '--state <text>': 'decision content (text)',
    '--image <url>': { repeatable: 'decision content image (repeatable)' },
    '--question <q>': { repeatable: 'decision question (repeatable)' },
    '--kind <kind>': 'decision question kind (default yes_no, or choice with --options)',
    '--options <a,b,c>': 'decision options',
    '--thinking': 'decision: enable a reasoning round',
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
