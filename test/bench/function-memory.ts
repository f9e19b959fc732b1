import { synthesizeApp } from '../infra/synth';

/**
 * Prints `{ "<construct path>": <MemorySize MB> }` for every Lambda function of the synthesized app (no
 * bundling): the memory each function is configured with, read from the CDK stacks themselves. Run in a
 * process of its own (`node --import tsx`) by the cost bench, since the CDK app resolves modules with
 * `import.meta.resolve`.
 */
const app = synthesizeApp({ bundling: false });
const memory: Record<string, number> = {};
for (const stack of app.assembly.stacks) {
  const resources = stack.template.Resources as Record<
    string,
    { Type: string; Metadata?: Record<string, string>; Properties?: { MemorySize?: number } }
  >;
  for (const resource of Object.values(resources)) {
    const path = resource.Metadata?.['aws:cdk:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || !path) continue;
    // CloudFormation's default when a function names none.
    memory[path.replace(/\/Resource$/, '')] = resource.Properties?.MemorySize ?? 128;
  }
}
app.cleanup();
process.stdout.write(`${JSON.stringify(memory)}\n`);
