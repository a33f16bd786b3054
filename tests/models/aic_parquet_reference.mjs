// Writes tests/models/aic_parquet_reference.tsv, the independent reference that tests/models/test_parquet_reader.cpp
// checks the project's Parquet reader against: for every table under calibration/aiconfigurator/systems/data, its
// row count, the sum of its `latency` column, and three whole rows (first, middle, last), as DuckDB reads them.
// A developer's tool, run once by hand (not by the tests, and DuckDB is no dependency of the project):
//   npm install @duckdb/node-api   (in a scratch folder; then NODE_PATH=<it>/node_modules)
//   node tests/models/aic_parquet_reference.mjs <data folder> > tests/models/aic_parquet_reference.tsv
// Numbers are printed with 17 significant digits (doubles round-trip exactly); strings as they are (none holds a
// tab or a newline).
import { createRequire } from 'module';
const require = createRequire(process.env.NODE_PATH + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
import { readdirSync, statSync } from 'fs';

const data = process.argv[2];
const root = data + '/calibration/aiconfigurator';
const files = [];
const walk = (d) => {
  for (const e of readdirSync(d).sort()) {
    const p = d + '/' + e;
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.parquet')) files.push(p.slice(root.length + 1));
  }
};
walk(root + '/systems/data');
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const fmt = (v) => (typeof v === 'number' ? v.toPrecision(17) : typeof v === 'bigint' ? v.toString() : v === null ? 'NULL' : String(v));
console.log('# file\trows\tlatency_sum (or row index)\tcolumn=value ... (see aic_parquet_reference.mjs)');
for (const f of files) {
  const src = `read_parquet('${root}/${f}', file_row_number=true)`;
  const [[n, sum]] = (await con.runAndReadAll(`SELECT count(*), sum(latency) FROM ${src}`)).getRows();
  console.log(`${f}\t${n}\t${fmt(sum)}`);
  const rows = Number(n);
  for (const r of [0, Math.floor(rows / 2), rows - 1]) {
    const res = await con.runAndReadAll(`SELECT * EXCLUDE (file_row_number) FROM ${src} WHERE file_row_number = ${r}`);
    const names = res.columnNames();
    const vals = res.getRows()[0];
    console.log(`${f}\t@\t${r}\t` + names.map((c, i) => `${c}=${fmt(vals[i])}`).join('\t'));
  }
}
