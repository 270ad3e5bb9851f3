'use strict';
// packcheck-corpus: the packcheck conformance corpus and a harness that holds a reader to it
// (shaped like toml-test's data + harness packages).
const corpus = require('./lib/corpus');
const { Harness, Report, Refused } = require('./lib/harness');

module.exports = {
  version: corpus.version,
  manifestSha256: corpus.manifestSha256,
  corpusDir: corpus.corpusDir,
  cases: corpus.cases,
  find: corpus.find,
  Harness,
  Report,
  Refused,
};
