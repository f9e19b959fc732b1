import { createApp } from '../lib/app';

// `cdk synth` / `cdk deploy`: the data stack, the API stack and the cdk-nag AwsSolutions checks.
createApp();
