// Issue 37: every example of the documentation runs; part 3 of 3 (test/docs/examples.ts).
import { describeExamples } from './examples.js';

describeExamples(3, 3);
