import { createApp } from '../lib/app';

// `cdk synth` / `cdk deploy`: the data, jobs, API and observability stacks, with the cdk-nag AwsSolutions checks.
createApp();
