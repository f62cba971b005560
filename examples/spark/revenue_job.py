"""Revenue over an NDJSON export of any size, on Spark, with receipt-tool as the map and reduce steps.

  spark-submit revenue_job.py \
      receipt-tool catalog.json s3://bucket/export.ndjson report.json [--by month] [--commission standard]

The report is byte for byte that of `receipt-tool revenue --format json` on the whole export on one machine:
the reduce partitions' digests add up to the one-machine digest in its `part` member, and their documents'
signature verdicts combine into the one-machine `signature_check`. The map step names each document as it
reads it (`<stdin>:N`, counted within its split), so where a verdict or an error names a document, the name
is the split's line, not the export's.
"""
import argparse
import os
import subprocess

from pyspark import SparkFiles
from pyspark.sql import SparkSession


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", help="receipt-tool, shipped with --files")
    parser.add_argument("catalog", help="the catalog, shipped with --files")
    parser.add_argument("export", help="an NDJSON export, any path Spark reads")
    parser.add_argument("report", help="where to write the report")
    parser.add_argument("--by", default="product")
    parser.add_argument("--commission", default="none")
    parser.add_argument("--partitions", type=int, default=8)
    args = parser.parse_args()

    spark = SparkSession.builder.appName("receipt-tool revenue").getOrCreate()
    sc = spark.sparkContext
    # Ship the binary and the catalog to every executor (as --files does).
    sc.addFile(args.binary)
    sc.addFile(args.catalog)
    tool = SparkFiles.get(os.path.basename(args.binary))
    catalog = SparkFiles.get(os.path.basename(args.catalog))

    # Map: one ledger line per transaction copy, keyed by transaction id, and one verdict line per
    # document, keyed by its name.
    keyed = sc.textFile(args.export).pipe(
        f"'{tool}' revenue --catalog '{catalog}' --ndjson --format keyed-ledger -")
    pairs = keyed.map(lambda line: tuple(line.split("\t", 1)))
    # Shuffle: every copy of a transaction reaches the same reduce, which counts it once.
    ledger = pairs.partitionBy(args.partitions).values()
    parts = ledger.pipe(
        f"'{tool}' revenue --from-ledger --by {args.by} --commission {args.commission} --format json -"
    ).collect()

    # Merge the one-line partial reports on the driver.
    merged = subprocess.run(
        [args.binary, "revenue", "--merge", "--ndjson", "--format", "json", "-"],
        input="".join(p + "\n" for p in parts).encode(), capture_output=True, check=True)
    with open(args.report, "wb") as out:
        out.write(merged.stdout)
    spark.stop()


if __name__ == "__main__":
    main()
