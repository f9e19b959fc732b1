import { synthesizeApp } from '../infra/synth';
import type { FunctionConfig } from './cost-model';

/**
 * Prints `{ "<construct path>": { memoryMb, systemLogLevel } }` for every Lambda function of the synthesized
 * app (no bundling): the memory each function is configured with and the system log level that decides whether
 * Lambda writes its platform lines, read from the CDK stacks themselves. Run in a process of its own (`node
 * --import tsx`) by the cost bench, since the CDK app resolves modules with `import.meta.resolve`.
 */
const app = synthesizeApp({ bundling: false });
const functions: Record<string, FunctionConfig> = {};
for (const stack of app.assembly.stacks) {
  const resources = stack.template.Resources as Record<
    string,
    {
      Type: string;
      Metadata?: Record<string, string>;
      Properties?: { MemorySize?: number; LoggingConfig?: { SystemLogLevel?: string } };
    }
  >;
  for (const resource of Object.values(resources)) {
    const path = resource.Metadata?.['aws:cdk:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || !path) continue;
    const systemLogLevel = resource.Properties?.LoggingConfig?.SystemLogLevel;
    functions[path.replace(/\/Resource$/, '')] = {
      // CloudFormation's default when a function names none.
      memoryMb: resource.Properties?.MemorySize ?? 128,
      ...(systemLogLevel === undefined ? {} : { systemLogLevel }),
    };
  }
}
app.cleanup();
process.stdout.write(`${JSON.stringify(functions)}\n`);
