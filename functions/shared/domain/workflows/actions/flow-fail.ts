import { DeclaredStepFailure } from '../../../step-outcomes';
import * as z from '../../../zod';
import { FAIL_ACTION } from '../outcome';
import { defineAction } from './registry';

/**
 * `actions/flow/fail`: ends the run `failed` on purpose (`ok: false`), with the step's `code` as the run's
 * `error.code` and its `message`; the steps after it are not run and `return` is not evaluated. Put an `if`
 * on it to fail a run when a condition holds (an HTTP answer the definition does not accept, a missing
 * value). `allowFailure` does not apply: the step exists to end the run.
 */
export const flowFail = defineAction({
  name: FAIL_ACTION,
  scope: 'workflows:run',
  maxDurationMs: 1_000,
  get input() {
    return z
      .object({
        code: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower-case letters, digits and _, starting with a letter')
          .describe('The run’s `error.code`.'),
        message: z.string().min(1).max(1000).describe('The run’s `error.message`.'),
      })
      .strict();
  },
  run: async (input) => {
    throw new DeclaredStepFailure(input.code, input.message);
  },
});
