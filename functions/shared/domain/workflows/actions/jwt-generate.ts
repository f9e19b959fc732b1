import type { MintSource } from '../../../auth/jwt-mint';
import { StepOutcomeError } from '../../../step-outcomes';
import { TRIGGER_CALLER_PREFIX } from '../../../types/workflows';
import * as z from '../../../zod';
import { issueToken } from '../../tokens';
import { keepRunSecret } from '../run-secrets';
import { type ActionContext, defineAction } from './registry';

/**
 * `actions/security/auth/jwt/generate`: mints a `/v1` token for the run's company through the one minting
 * function the operator CLI uses (`domain/tokens.ts`). The token follows the credential that started the
 * run: its scopes a subset (`jwt_scopes_exceed_caller`), its `ips` inherited or inside them
 * (`jwt_ips_exceed_caller`), its `exp` no later, and its `src` the same root credential, so revoking the API
 * key ends it.
 *
 * The token is a secret (`secretFields`): only the caller of a sync run receives it, in the run's answer.
 * The run item, its step outputs, the `workflow_run.finished` event and its webhook deliveries hold the
 * stand-in `{ redacted: true, jti, expiresAt }`. An async run keeps it as a run-scoped secret
 * (`../run-secrets.ts`): sealed, opened again by its later turns for its later steps' requests, never
 * answered. A run started by a trigger has no credential to derive a token from: `jwt_requires_sync_run`.
 */
const sourceOf = (ctx: ActionContext): MintSource | undefined => {
  const { caller } = ctx;
  // A run a trigger started holds no credential a token could be derived from (and revoked with).
  if (!caller || caller.source.startsWith(TRIGGER_CALLER_PREFIX)) return undefined;
  if (caller.tokenId === undefined)
    return {
      kind: 'api_key',
      keyId: caller.source,
      scopes: ctx.callerScopes,
      ...(caller.expiresAt === undefined ? {} : { exp: caller.expiresAt }),
      ...(caller.ips ? { ips: caller.ips } : {}),
    };
  if (caller.expiresAt === undefined) return undefined;
  return {
    kind: 'jwt',
    jti: caller.tokenId,
    src: caller.source,
    exp: caller.expiresAt,
    ...(caller.ips ? { ips: caller.ips } : {}),
    ...(caller.ancestors ? { anc: caller.ancestors } : {}),
    scopes: ctx.callerScopes,
  };
};

export const jwtGenerate = defineAction({
  name: 'actions/security/auth/jwt/generate',
  scope: 'workflows:run',
  maxDurationMs: 5_000,
  secretFields: ['token'],
  get input() {
    return z
      .object({
        ips: z.array(z.string()).optional(),
        dur: z.number().int().optional(),
        scopes: z.array(z.string()).optional(),
        advanced: z.boolean().optional(),
        // Tokens of other kinds (an OAuth connect redirect, …) are the platform's own business, never a tenant's.
        kind: z.literal('v1').optional(),
      })
      .strict();
  },
  run: async (input, ctx) => {
    const source = sourceOf(ctx);
    if (!source) {
      throw new StepOutcomeError(
        'jwt_requires_sync_run',
        'A token is derived from the credential that started the run, and this run was started by none.',
      );
    }
    if (ctx.mints === false) {
      throw new StepOutcomeError(
        'jwt_requires_sync_run',
        'A run started through the MCP server mints no token: run the workflow with POST /v1/workflows/{id}/run.',
      );
    }
    const minted = await issueToken(
      { ...input, companyId: ctx.companyId, advanced: input.advanced ?? false, source },
      `workflow_run:${ctx.runId}`,
      ctx.now,
    );
    // An async run keeps it sealed for its later steps, which may run in another invocation.
    if (!ctx.sync) {
      await keepRunSecret(
        { companyId: ctx.companyId, runId: ctx.runId, stepId: ctx.stepId ?? 'step' },
        'token',
        minted.token,
        minted.expiresAt,
      );
    }
    return { token: minted.token, jti: minted.jti, expiresAt: minted.expiresAt };
  },
});
