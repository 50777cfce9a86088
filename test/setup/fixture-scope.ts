import { forgetClosers } from '../helpers/fixture-closers.js';

// Each file starts with no closers of another file's top-level blocks (test/helpers/fixture-closers.ts).
forgetClosers();
