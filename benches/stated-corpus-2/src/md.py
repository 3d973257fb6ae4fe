# markdown cells: chapter -> list of (insert_before_code_cell_id or None for end, md_id, text)
MD = {
"01": [
 ("c01-load", "md01-intro", "# Counting words\n\nThis notebook counts the words in a six-line passage. The first cell prints the number of tokens and of distinct words."),
 ("c01-top", "md01-top", "The next cell lists the 5 most frequent words with their counts."),
 ("c01-ratio", "md01-ratio", "A type/token ratio near 1 means almost every word is new; ours should come out at 0.5."),
 ("c01-hapax", "md01-hapax", "The assertion below checks that the counts add up to the 94 tokens before we count the hapaxes."),
],
"02": [
 ("c02-setup", "md02-intro", "# An LRU cache under a skewed workload\n\nWe build the cache from an `OrderedDict` and generate the request trace."),
 ("c02-sweep", "md02-sweep", "The sweep below tries capacities of 10, 50, 100 and 500 entries and prints one hit rate per line."),
 ("c02-cost", "md02-cost", "Next, a crude cost model: every hit costs 0.2 ms and every miss 15 ms."),
 ("c02-fifo", "md02-fifo", "For comparison, a FIFO cache of the same 100 entries; expect it to do a few points worse than LRU's 57.8%."),
],
"03": [
 ("c03-sim", "md03-intro", "# Simulating a single-server queue\n\nArrivals and service times are exponential; the function returns every customer's wait."),
 ("c03-table", "md03-table", "The table compares the simulated mean wait with theory at each utilisation. At a utilisation of 0.8 customers wait 3.5 time units on average, close to the 4.00 that theory predicts."),
 ("c03-two", "md03-two", "Finally, two servers each running at rate 1 share an arrival rate of 1.8."),
],
"04": [
 ("c04-tenth", "md04-intro", "# Where floating-point sums go wrong\n\nWe start with the smallest example there is."),
 ("c04-kahan", "md04-kahan", "Kahan summation (1965) carries a correction term; on the 100,000 random values below it should match `math.fsum`."),
 ("c04-assert", "md04-assert", "The assertions pin down the behaviour: Kahan gets the sum of tenths right, the naive sum does not."),
],
"05": [
 ("c05-exact", "md05-intro", "# The birthday problem, and dice\n\nWe start from the closed form: the chance that n people all have different birthdays is a product of n factors."),
 ("c05-dice", "md05-dice", "The next cell rolls two dice 36,000 times and tabulates the 11 possible sums."),
],
"06": [
 ("c06-class", "md06-intro", "# A Bloom filter in twenty lines\n\nThe filter derives all its bit positions from one SHA-256 digest."),
 ("c06-sweep", "md06-sweep", "The sweep uses k = round(0.693 * bits per item) hash functions, the value that minimises the false-positive rate."),
 ("c06-mem", "md06-mem", "Back-of-the-envelope memory: a set entry costs around 60 bytes in CPython."),
],
"07": [
 ("c07-data", "md07-intro", "# Running statistics\n\nWe generate the readings first and look at their extremes."),
 ("c07-welford", "md07-welford", "Each update costs O(1) time and keeps three numbers: the count, the mean and the sum of squared deviations."),
 ("c07-window", "md07-window", "The window holds the last 24 readings, one day of hourly data."),
],
"08": [
 ("c08-corpus", "md08-intro", "# Comparing tokenizers\n\nThe corpus is random syllable soup, so nothing here depends on a download."),
 ("c08-table", "md08-table", "## Three tokenizers, 300 documents\n\nThe table prints tokens, vocabulary and characters per token for each."),
 ("c08-longest", "md08-longest", "Whitespace tokens average 5.98 characters, including the space that follows each word."),
],
"09": [
 ("c09-grid", "md09-intro", "# Shortest paths on a grid\n\nWalls are drawn at random from a fixed seed."),
 ("c09-bfs", "md09-bfs", "BFS explores the grid in rings; the first time it dequeues the goal, the distance is the shortest path length."),
 ("c09-dijkstra", "md09-dijkstra", "Rows with an odd index are mud: entering one costs 5, every other cell costs 1."),
],
"10": [
 ("c10-sched", "md10-intro", "# Retries and backoff\n\nThe schedule doubles each delay up to a cap."),
 ("c10-sim", "md10-sim", "Now 10,000 simulated requests, each allowed 4 attempts, against a backend that fails 30% of calls."),
 ("c10-raise", "md10-raise", "The last cell raises on purpose, to show the traceback a caller would see."),
],
}
