// What java.time.format.DateTimeFormatter.ofPattern(pattern, Locale.US) prints, captured from
// OpenJDK 17.0.15 by the Golden.java program reproduced at the end of this file, fed the patterns
// that appear in the rows below.
//
// Rows: `F<TAB>pattern<TAB>zone<TAB>instant index<TAB>output<TAB>$` for formatted output and
// `E<TAB>pattern<TAB>message<TAB>$` for the IllegalArgumentException message of a rejected pattern.

/// The instants Golden.java formats, as (epoch seconds, nanoseconds).
let javaGoldenInstants: [(seconds: Int64, nanos: Int)] = [
    (1795266309, 123456000),  // 2026-11-21T13:05:09.123456Z
    (1709164800, 0),  // 2024-02-29T00:00:00Z
    (1704067199, 999999000),  // 2023-12-31T23:59:59.999999Z
    (946684800, 0),  // 2000-01-01T00:00:00Z
    (0, 0),  // 1970-01-01T00:00:00Z
    (1783168200, 500000000),  // 2026-07-04T12:30:00.5Z
    (-1, 250000000),  // 1969-12-31T23:59:59.25Z
    (4107542820, 0),  // 2100-03-01T00:07:00Z
]

let javaGoldenTable = #"""
    F	yyyy	UTC	0	2026	$
    F	yyyy	UTC	1	2024	$
    F	yyyy	UTC	2	2023	$
    F	yyyy	UTC	3	2000	$
    F	yyyy	UTC	4	1970	$
    F	yyyy	UTC	5	2026	$
    F	yyyy	UTC	6	1969	$
    F	yyyy	UTC	7	2100	$
    F	yyyy	America/New_York	0	2026	$
    F	yyyy	America/New_York	1	2024	$
    F	yyyy	America/New_York	2	2023	$
    F	yyyy	America/New_York	3	1999	$
    F	yyyy	America/New_York	4	1969	$
    F	yyyy	America/New_York	5	2026	$
    F	yyyy	America/New_York	6	1969	$
    F	yyyy	America/New_York	7	2100	$
    F	yyyy	Asia/Kolkata	0	2026	$
    F	yyyy	Asia/Kolkata	1	2024	$
    F	yyyy	Asia/Kolkata	2	2024	$
    F	yyyy	Asia/Kolkata	3	2000	$
    F	yyyy	Asia/Kolkata	4	1970	$
    F	yyyy	Asia/Kolkata	5	2026	$
    F	yyyy	Asia/Kolkata	6	1970	$
    F	yyyy	Asia/Kolkata	7	2100	$
    F	yyyy	America/St_Johns	0	2026	$
    F	yyyy	America/St_Johns	1	2024	$
    F	yyyy	America/St_Johns	2	2023	$
    F	yyyy	America/St_Johns	3	1999	$
    F	yyyy	America/St_Johns	4	1969	$
    F	yyyy	America/St_Johns	5	2026	$
    F	yyyy	America/St_Johns	6	1969	$
    F	yyyy	America/St_Johns	7	2100	$
    F	yy	UTC	0	26	$
    F	yy	UTC	1	24	$
    F	yy	UTC	2	23	$
    F	yy	UTC	3	00	$
    F	yy	UTC	4	70	$
    F	yy	UTC	5	26	$
    F	yy	UTC	6	69	$
    F	yy	UTC	7	00	$
    F	yy	America/New_York	0	26	$
    F	yy	America/New_York	1	24	$
    F	yy	America/New_York	2	23	$
    F	yy	America/New_York	3	99	$
    F	yy	America/New_York	4	69	$
    F	yy	America/New_York	5	26	$
    F	yy	America/New_York	6	69	$
    F	yy	America/New_York	7	00	$
    F	yy	Asia/Kolkata	0	26	$
    F	yy	Asia/Kolkata	1	24	$
    F	yy	Asia/Kolkata	2	24	$
    F	yy	Asia/Kolkata	3	00	$
    F	yy	Asia/Kolkata	4	70	$
    F	yy	Asia/Kolkata	5	26	$
    F	yy	Asia/Kolkata	6	70	$
    F	yy	Asia/Kolkata	7	00	$
    F	yy	America/St_Johns	0	26	$
    F	yy	America/St_Johns	1	24	$
    F	yy	America/St_Johns	2	23	$
    F	yy	America/St_Johns	3	99	$
    F	yy	America/St_Johns	4	69	$
    F	yy	America/St_Johns	5	26	$
    F	yy	America/St_Johns	6	69	$
    F	yy	America/St_Johns	7	00	$
    F	y	UTC	0	2026	$
    F	y	UTC	1	2024	$
    F	y	UTC	2	2023	$
    F	y	UTC	3	2000	$
    F	y	UTC	4	1970	$
    F	y	UTC	5	2026	$
    F	y	UTC	6	1969	$
    F	y	UTC	7	2100	$
    F	y	America/New_York	0	2026	$
    F	y	America/New_York	1	2024	$
    F	y	America/New_York	2	2023	$
    F	y	America/New_York	3	1999	$
    F	y	America/New_York	4	1969	$
    F	y	America/New_York	5	2026	$
    F	y	America/New_York	6	1969	$
    F	y	America/New_York	7	2100	$
    F	y	Asia/Kolkata	0	2026	$
    F	y	Asia/Kolkata	1	2024	$
    F	y	Asia/Kolkata	2	2024	$
    F	y	Asia/Kolkata	3	2000	$
    F	y	Asia/Kolkata	4	1970	$
    F	y	Asia/Kolkata	5	2026	$
    F	y	Asia/Kolkata	6	1970	$
    F	y	Asia/Kolkata	7	2100	$
    F	y	America/St_Johns	0	2026	$
    F	y	America/St_Johns	1	2024	$
    F	y	America/St_Johns	2	2023	$
    F	y	America/St_Johns	3	1999	$
    F	y	America/St_Johns	4	1969	$
    F	y	America/St_Johns	5	2026	$
    F	y	America/St_Johns	6	1969	$
    F	y	America/St_Johns	7	2100	$
    F	yyy	UTC	0	2026	$
    F	yyy	UTC	1	2024	$
    F	yyy	UTC	2	2023	$
    F	yyy	UTC	3	2000	$
    F	yyy	UTC	4	1970	$
    F	yyy	UTC	5	2026	$
    F	yyy	UTC	6	1969	$
    F	yyy	UTC	7	2100	$
    F	yyy	America/New_York	0	2026	$
    F	yyy	America/New_York	1	2024	$
    F	yyy	America/New_York	2	2023	$
    F	yyy	America/New_York	3	1999	$
    F	yyy	America/New_York	4	1969	$
    F	yyy	America/New_York	5	2026	$
    F	yyy	America/New_York	6	1969	$
    F	yyy	America/New_York	7	2100	$
    F	yyy	Asia/Kolkata	0	2026	$
    F	yyy	Asia/Kolkata	1	2024	$
    F	yyy	Asia/Kolkata	2	2024	$
    F	yyy	Asia/Kolkata	3	2000	$
    F	yyy	Asia/Kolkata	4	1970	$
    F	yyy	Asia/Kolkata	5	2026	$
    F	yyy	Asia/Kolkata	6	1970	$
    F	yyy	Asia/Kolkata	7	2100	$
    F	yyy	America/St_Johns	0	2026	$
    F	yyy	America/St_Johns	1	2024	$
    F	yyy	America/St_Johns	2	2023	$
    F	yyy	America/St_Johns	3	1999	$
    F	yyy	America/St_Johns	4	1969	$
    F	yyy	America/St_Johns	5	2026	$
    F	yyy	America/St_Johns	6	1969	$
    F	yyy	America/St_Johns	7	2100	$
    F	yyyyy	UTC	0	02026	$
    F	yyyyy	UTC	1	02024	$
    F	yyyyy	UTC	2	02023	$
    F	yyyyy	UTC	3	02000	$
    F	yyyyy	UTC	4	01970	$
    F	yyyyy	UTC	5	02026	$
    F	yyyyy	UTC	6	01969	$
    F	yyyyy	UTC	7	02100	$
    F	yyyyy	America/New_York	0	02026	$
    F	yyyyy	America/New_York	1	02024	$
    F	yyyyy	America/New_York	2	02023	$
    F	yyyyy	America/New_York	3	01999	$
    F	yyyyy	America/New_York	4	01969	$
    F	yyyyy	America/New_York	5	02026	$
    F	yyyyy	America/New_York	6	01969	$
    F	yyyyy	America/New_York	7	02100	$
    F	yyyyy	Asia/Kolkata	0	02026	$
    F	yyyyy	Asia/Kolkata	1	02024	$
    F	yyyyy	Asia/Kolkata	2	02024	$
    F	yyyyy	Asia/Kolkata	3	02000	$
    F	yyyyy	Asia/Kolkata	4	01970	$
    F	yyyyy	Asia/Kolkata	5	02026	$
    F	yyyyy	Asia/Kolkata	6	01970	$
    F	yyyyy	Asia/Kolkata	7	02100	$
    F	yyyyy	America/St_Johns	0	02026	$
    F	yyyyy	America/St_Johns	1	02024	$
    F	yyyyy	America/St_Johns	2	02023	$
    F	yyyyy	America/St_Johns	3	01999	$
    F	yyyyy	America/St_Johns	4	01969	$
    F	yyyyy	America/St_Johns	5	02026	$
    F	yyyyy	America/St_Johns	6	01969	$
    F	yyyyy	America/St_Johns	7	02100	$
    F	uuuu	UTC	0	2026	$
    F	uuuu	UTC	1	2024	$
    F	uuuu	UTC	2	2023	$
    F	uuuu	UTC	3	2000	$
    F	uuuu	UTC	4	1970	$
    F	uuuu	UTC	5	2026	$
    F	uuuu	UTC	6	1969	$
    F	uuuu	UTC	7	2100	$
    F	uuuu	America/New_York	0	2026	$
    F	uuuu	America/New_York	1	2024	$
    F	uuuu	America/New_York	2	2023	$
    F	uuuu	America/New_York	3	1999	$
    F	uuuu	America/New_York	4	1969	$
    F	uuuu	America/New_York	5	2026	$
    F	uuuu	America/New_York	6	1969	$
    F	uuuu	America/New_York	7	2100	$
    F	uuuu	Asia/Kolkata	0	2026	$
    F	uuuu	Asia/Kolkata	1	2024	$
    F	uuuu	Asia/Kolkata	2	2024	$
    F	uuuu	Asia/Kolkata	3	2000	$
    F	uuuu	Asia/Kolkata	4	1970	$
    F	uuuu	Asia/Kolkata	5	2026	$
    F	uuuu	Asia/Kolkata	6	1970	$
    F	uuuu	Asia/Kolkata	7	2100	$
    F	uuuu	America/St_Johns	0	2026	$
    F	uuuu	America/St_Johns	1	2024	$
    F	uuuu	America/St_Johns	2	2023	$
    F	uuuu	America/St_Johns	3	1999	$
    F	uuuu	America/St_Johns	4	1969	$
    F	uuuu	America/St_Johns	5	2026	$
    F	uuuu	America/St_Johns	6	1969	$
    F	uuuu	America/St_Johns	7	2100	$
    F	uu	UTC	0	26	$
    F	uu	UTC	1	24	$
    F	uu	UTC	2	23	$
    F	uu	UTC	3	00	$
    F	uu	UTC	4	70	$
    F	uu	UTC	5	26	$
    F	uu	UTC	6	69	$
    F	uu	UTC	7	00	$
    F	uu	America/New_York	0	26	$
    F	uu	America/New_York	1	24	$
    F	uu	America/New_York	2	23	$
    F	uu	America/New_York	3	99	$
    F	uu	America/New_York	4	69	$
    F	uu	America/New_York	5	26	$
    F	uu	America/New_York	6	69	$
    F	uu	America/New_York	7	00	$
    F	uu	Asia/Kolkata	0	26	$
    F	uu	Asia/Kolkata	1	24	$
    F	uu	Asia/Kolkata	2	24	$
    F	uu	Asia/Kolkata	3	00	$
    F	uu	Asia/Kolkata	4	70	$
    F	uu	Asia/Kolkata	5	26	$
    F	uu	Asia/Kolkata	6	70	$
    F	uu	Asia/Kolkata	7	00	$
    F	uu	America/St_Johns	0	26	$
    F	uu	America/St_Johns	1	24	$
    F	uu	America/St_Johns	2	23	$
    F	uu	America/St_Johns	3	99	$
    F	uu	America/St_Johns	4	69	$
    F	uu	America/St_Johns	5	26	$
    F	uu	America/St_Johns	6	69	$
    F	uu	America/St_Johns	7	00	$
    F	u	UTC	0	2026	$
    F	u	UTC	1	2024	$
    F	u	UTC	2	2023	$
    F	u	UTC	3	2000	$
    F	u	UTC	4	1970	$
    F	u	UTC	5	2026	$
    F	u	UTC	6	1969	$
    F	u	UTC	7	2100	$
    F	u	America/New_York	0	2026	$
    F	u	America/New_York	1	2024	$
    F	u	America/New_York	2	2023	$
    F	u	America/New_York	3	1999	$
    F	u	America/New_York	4	1969	$
    F	u	America/New_York	5	2026	$
    F	u	America/New_York	6	1969	$
    F	u	America/New_York	7	2100	$
    F	u	Asia/Kolkata	0	2026	$
    F	u	Asia/Kolkata	1	2024	$
    F	u	Asia/Kolkata	2	2024	$
    F	u	Asia/Kolkata	3	2000	$
    F	u	Asia/Kolkata	4	1970	$
    F	u	Asia/Kolkata	5	2026	$
    F	u	Asia/Kolkata	6	1970	$
    F	u	Asia/Kolkata	7	2100	$
    F	u	America/St_Johns	0	2026	$
    F	u	America/St_Johns	1	2024	$
    F	u	America/St_Johns	2	2023	$
    F	u	America/St_Johns	3	1999	$
    F	u	America/St_Johns	4	1969	$
    F	u	America/St_Johns	5	2026	$
    F	u	America/St_Johns	6	1969	$
    F	u	America/St_Johns	7	2100	$
    F	M	UTC	0	11	$
    F	M	UTC	1	2	$
    F	M	UTC	2	12	$
    F	M	UTC	3	1	$
    F	M	UTC	4	1	$
    F	M	UTC	5	7	$
    F	M	UTC	6	12	$
    F	M	UTC	7	3	$
    F	M	America/New_York	0	11	$
    F	M	America/New_York	1	2	$
    F	M	America/New_York	2	12	$
    F	M	America/New_York	3	12	$
    F	M	America/New_York	4	12	$
    F	M	America/New_York	5	7	$
    F	M	America/New_York	6	12	$
    F	M	America/New_York	7	2	$
    F	M	Asia/Kolkata	0	11	$
    F	M	Asia/Kolkata	1	2	$
    F	M	Asia/Kolkata	2	1	$
    F	M	Asia/Kolkata	3	1	$
    F	M	Asia/Kolkata	4	1	$
    F	M	Asia/Kolkata	5	7	$
    F	M	Asia/Kolkata	6	1	$
    F	M	Asia/Kolkata	7	3	$
    F	M	America/St_Johns	0	11	$
    F	M	America/St_Johns	1	2	$
    F	M	America/St_Johns	2	12	$
    F	M	America/St_Johns	3	12	$
    F	M	America/St_Johns	4	12	$
    F	M	America/St_Johns	5	7	$
    F	M	America/St_Johns	6	12	$
    F	M	America/St_Johns	7	2	$
    F	MM	UTC	0	11	$
    F	MM	UTC	1	02	$
    F	MM	UTC	2	12	$
    F	MM	UTC	3	01	$
    F	MM	UTC	4	01	$
    F	MM	UTC	5	07	$
    F	MM	UTC	6	12	$
    F	MM	UTC	7	03	$
    F	MM	America/New_York	0	11	$
    F	MM	America/New_York	1	02	$
    F	MM	America/New_York	2	12	$
    F	MM	America/New_York	3	12	$
    F	MM	America/New_York	4	12	$
    F	MM	America/New_York	5	07	$
    F	MM	America/New_York	6	12	$
    F	MM	America/New_York	7	02	$
    F	MM	Asia/Kolkata	0	11	$
    F	MM	Asia/Kolkata	1	02	$
    F	MM	Asia/Kolkata	2	01	$
    F	MM	Asia/Kolkata	3	01	$
    F	MM	Asia/Kolkata	4	01	$
    F	MM	Asia/Kolkata	5	07	$
    F	MM	Asia/Kolkata	6	01	$
    F	MM	Asia/Kolkata	7	03	$
    F	MM	America/St_Johns	0	11	$
    F	MM	America/St_Johns	1	02	$
    F	MM	America/St_Johns	2	12	$
    F	MM	America/St_Johns	3	12	$
    F	MM	America/St_Johns	4	12	$
    F	MM	America/St_Johns	5	07	$
    F	MM	America/St_Johns	6	12	$
    F	MM	America/St_Johns	7	02	$
    F	MMM	UTC	0	Nov	$
    F	MMM	UTC	1	Feb	$
    F	MMM	UTC	2	Dec	$
    F	MMM	UTC	3	Jan	$
    F	MMM	UTC	4	Jan	$
    F	MMM	UTC	5	Jul	$
    F	MMM	UTC	6	Dec	$
    F	MMM	UTC	7	Mar	$
    F	MMM	America/New_York	0	Nov	$
    F	MMM	America/New_York	1	Feb	$
    F	MMM	America/New_York	2	Dec	$
    F	MMM	America/New_York	3	Dec	$
    F	MMM	America/New_York	4	Dec	$
    F	MMM	America/New_York	5	Jul	$
    F	MMM	America/New_York	6	Dec	$
    F	MMM	America/New_York	7	Feb	$
    F	MMM	Asia/Kolkata	0	Nov	$
    F	MMM	Asia/Kolkata	1	Feb	$
    F	MMM	Asia/Kolkata	2	Jan	$
    F	MMM	Asia/Kolkata	3	Jan	$
    F	MMM	Asia/Kolkata	4	Jan	$
    F	MMM	Asia/Kolkata	5	Jul	$
    F	MMM	Asia/Kolkata	6	Jan	$
    F	MMM	Asia/Kolkata	7	Mar	$
    F	MMM	America/St_Johns	0	Nov	$
    F	MMM	America/St_Johns	1	Feb	$
    F	MMM	America/St_Johns	2	Dec	$
    F	MMM	America/St_Johns	3	Dec	$
    F	MMM	America/St_Johns	4	Dec	$
    F	MMM	America/St_Johns	5	Jul	$
    F	MMM	America/St_Johns	6	Dec	$
    F	MMM	America/St_Johns	7	Feb	$
    F	MMMM	UTC	0	November	$
    F	MMMM	UTC	1	February	$
    F	MMMM	UTC	2	December	$
    F	MMMM	UTC	3	January	$
    F	MMMM	UTC	4	January	$
    F	MMMM	UTC	5	July	$
    F	MMMM	UTC	6	December	$
    F	MMMM	UTC	7	March	$
    F	MMMM	America/New_York	0	November	$
    F	MMMM	America/New_York	1	February	$
    F	MMMM	America/New_York	2	December	$
    F	MMMM	America/New_York	3	December	$
    F	MMMM	America/New_York	4	December	$
    F	MMMM	America/New_York	5	July	$
    F	MMMM	America/New_York	6	December	$
    F	MMMM	America/New_York	7	February	$
    F	MMMM	Asia/Kolkata	0	November	$
    F	MMMM	Asia/Kolkata	1	February	$
    F	MMMM	Asia/Kolkata	2	January	$
    F	MMMM	Asia/Kolkata	3	January	$
    F	MMMM	Asia/Kolkata	4	January	$
    F	MMMM	Asia/Kolkata	5	July	$
    F	MMMM	Asia/Kolkata	6	January	$
    F	MMMM	Asia/Kolkata	7	March	$
    F	MMMM	America/St_Johns	0	November	$
    F	MMMM	America/St_Johns	1	February	$
    F	MMMM	America/St_Johns	2	December	$
    F	MMMM	America/St_Johns	3	December	$
    F	MMMM	America/St_Johns	4	December	$
    F	MMMM	America/St_Johns	5	July	$
    F	MMMM	America/St_Johns	6	December	$
    F	MMMM	America/St_Johns	7	February	$
    F	MMMMM	UTC	0	N	$
    F	MMMMM	UTC	1	F	$
    F	MMMMM	UTC	2	D	$
    F	MMMMM	UTC	3	J	$
    F	MMMMM	UTC	4	J	$
    F	MMMMM	UTC	5	J	$
    F	MMMMM	UTC	6	D	$
    F	MMMMM	UTC	7	M	$
    F	MMMMM	America/New_York	0	N	$
    F	MMMMM	America/New_York	1	F	$
    F	MMMMM	America/New_York	2	D	$
    F	MMMMM	America/New_York	3	D	$
    F	MMMMM	America/New_York	4	D	$
    F	MMMMM	America/New_York	5	J	$
    F	MMMMM	America/New_York	6	D	$
    F	MMMMM	America/New_York	7	F	$
    F	MMMMM	Asia/Kolkata	0	N	$
    F	MMMMM	Asia/Kolkata	1	F	$
    F	MMMMM	Asia/Kolkata	2	J	$
    F	MMMMM	Asia/Kolkata	3	J	$
    F	MMMMM	Asia/Kolkata	4	J	$
    F	MMMMM	Asia/Kolkata	5	J	$
    F	MMMMM	Asia/Kolkata	6	J	$
    F	MMMMM	Asia/Kolkata	7	M	$
    F	MMMMM	America/St_Johns	0	N	$
    F	MMMMM	America/St_Johns	1	F	$
    F	MMMMM	America/St_Johns	2	D	$
    F	MMMMM	America/St_Johns	3	D	$
    F	MMMMM	America/St_Johns	4	D	$
    F	MMMMM	America/St_Johns	5	J	$
    F	MMMMM	America/St_Johns	6	D	$
    F	MMMMM	America/St_Johns	7	F	$
    F	L	UTC	0	11	$
    F	L	UTC	1	2	$
    F	L	UTC	2	12	$
    F	L	UTC	3	1	$
    F	L	UTC	4	1	$
    F	L	UTC	5	7	$
    F	L	UTC	6	12	$
    F	L	UTC	7	3	$
    F	L	America/New_York	0	11	$
    F	L	America/New_York	1	2	$
    F	L	America/New_York	2	12	$
    F	L	America/New_York	3	12	$
    F	L	America/New_York	4	12	$
    F	L	America/New_York	5	7	$
    F	L	America/New_York	6	12	$
    F	L	America/New_York	7	2	$
    F	L	Asia/Kolkata	0	11	$
    F	L	Asia/Kolkata	1	2	$
    F	L	Asia/Kolkata	2	1	$
    F	L	Asia/Kolkata	3	1	$
    F	L	Asia/Kolkata	4	1	$
    F	L	Asia/Kolkata	5	7	$
    F	L	Asia/Kolkata	6	1	$
    F	L	Asia/Kolkata	7	3	$
    F	L	America/St_Johns	0	11	$
    F	L	America/St_Johns	1	2	$
    F	L	America/St_Johns	2	12	$
    F	L	America/St_Johns	3	12	$
    F	L	America/St_Johns	4	12	$
    F	L	America/St_Johns	5	7	$
    F	L	America/St_Johns	6	12	$
    F	L	America/St_Johns	7	2	$
    F	LL	UTC	0	11	$
    F	LL	UTC	1	02	$
    F	LL	UTC	2	12	$
    F	LL	UTC	3	01	$
    F	LL	UTC	4	01	$
    F	LL	UTC	5	07	$
    F	LL	UTC	6	12	$
    F	LL	UTC	7	03	$
    F	LL	America/New_York	0	11	$
    F	LL	America/New_York	1	02	$
    F	LL	America/New_York	2	12	$
    F	LL	America/New_York	3	12	$
    F	LL	America/New_York	4	12	$
    F	LL	America/New_York	5	07	$
    F	LL	America/New_York	6	12	$
    F	LL	America/New_York	7	02	$
    F	LL	Asia/Kolkata	0	11	$
    F	LL	Asia/Kolkata	1	02	$
    F	LL	Asia/Kolkata	2	01	$
    F	LL	Asia/Kolkata	3	01	$
    F	LL	Asia/Kolkata	4	01	$
    F	LL	Asia/Kolkata	5	07	$
    F	LL	Asia/Kolkata	6	01	$
    F	LL	Asia/Kolkata	7	03	$
    F	LL	America/St_Johns	0	11	$
    F	LL	America/St_Johns	1	02	$
    F	LL	America/St_Johns	2	12	$
    F	LL	America/St_Johns	3	12	$
    F	LL	America/St_Johns	4	12	$
    F	LL	America/St_Johns	5	07	$
    F	LL	America/St_Johns	6	12	$
    F	LL	America/St_Johns	7	02	$
    F	LLL	UTC	0	Nov	$
    F	LLL	UTC	1	Feb	$
    F	LLL	UTC	2	Dec	$
    F	LLL	UTC	3	Jan	$
    F	LLL	UTC	4	Jan	$
    F	LLL	UTC	5	Jul	$
    F	LLL	UTC	6	Dec	$
    F	LLL	UTC	7	Mar	$
    F	LLL	America/New_York	0	Nov	$
    F	LLL	America/New_York	1	Feb	$
    F	LLL	America/New_York	2	Dec	$
    F	LLL	America/New_York	3	Dec	$
    F	LLL	America/New_York	4	Dec	$
    F	LLL	America/New_York	5	Jul	$
    F	LLL	America/New_York	6	Dec	$
    F	LLL	America/New_York	7	Feb	$
    F	LLL	Asia/Kolkata	0	Nov	$
    F	LLL	Asia/Kolkata	1	Feb	$
    F	LLL	Asia/Kolkata	2	Jan	$
    F	LLL	Asia/Kolkata	3	Jan	$
    F	LLL	Asia/Kolkata	4	Jan	$
    F	LLL	Asia/Kolkata	5	Jul	$
    F	LLL	Asia/Kolkata	6	Jan	$
    F	LLL	Asia/Kolkata	7	Mar	$
    F	LLL	America/St_Johns	0	Nov	$
    F	LLL	America/St_Johns	1	Feb	$
    F	LLL	America/St_Johns	2	Dec	$
    F	LLL	America/St_Johns	3	Dec	$
    F	LLL	America/St_Johns	4	Dec	$
    F	LLL	America/St_Johns	5	Jul	$
    F	LLL	America/St_Johns	6	Dec	$
    F	LLL	America/St_Johns	7	Feb	$
    F	LLLL	UTC	0	November	$
    F	LLLL	UTC	1	February	$
    F	LLLL	UTC	2	December	$
    F	LLLL	UTC	3	January	$
    F	LLLL	UTC	4	January	$
    F	LLLL	UTC	5	July	$
    F	LLLL	UTC	6	December	$
    F	LLLL	UTC	7	March	$
    F	LLLL	America/New_York	0	November	$
    F	LLLL	America/New_York	1	February	$
    F	LLLL	America/New_York	2	December	$
    F	LLLL	America/New_York	3	December	$
    F	LLLL	America/New_York	4	December	$
    F	LLLL	America/New_York	5	July	$
    F	LLLL	America/New_York	6	December	$
    F	LLLL	America/New_York	7	February	$
    F	LLLL	Asia/Kolkata	0	November	$
    F	LLLL	Asia/Kolkata	1	February	$
    F	LLLL	Asia/Kolkata	2	January	$
    F	LLLL	Asia/Kolkata	3	January	$
    F	LLLL	Asia/Kolkata	4	January	$
    F	LLLL	Asia/Kolkata	5	July	$
    F	LLLL	Asia/Kolkata	6	January	$
    F	LLLL	Asia/Kolkata	7	March	$
    F	LLLL	America/St_Johns	0	November	$
    F	LLLL	America/St_Johns	1	February	$
    F	LLLL	America/St_Johns	2	December	$
    F	LLLL	America/St_Johns	3	December	$
    F	LLLL	America/St_Johns	4	December	$
    F	LLLL	America/St_Johns	5	July	$
    F	LLLL	America/St_Johns	6	December	$
    F	LLLL	America/St_Johns	7	February	$
    F	LLLLL	UTC	0	N	$
    F	LLLLL	UTC	1	F	$
    F	LLLLL	UTC	2	D	$
    F	LLLLL	UTC	3	J	$
    F	LLLLL	UTC	4	J	$
    F	LLLLL	UTC	5	J	$
    F	LLLLL	UTC	6	D	$
    F	LLLLL	UTC	7	M	$
    F	LLLLL	America/New_York	0	N	$
    F	LLLLL	America/New_York	1	F	$
    F	LLLLL	America/New_York	2	D	$
    F	LLLLL	America/New_York	3	D	$
    F	LLLLL	America/New_York	4	D	$
    F	LLLLL	America/New_York	5	J	$
    F	LLLLL	America/New_York	6	D	$
    F	LLLLL	America/New_York	7	F	$
    F	LLLLL	Asia/Kolkata	0	N	$
    F	LLLLL	Asia/Kolkata	1	F	$
    F	LLLLL	Asia/Kolkata	2	J	$
    F	LLLLL	Asia/Kolkata	3	J	$
    F	LLLLL	Asia/Kolkata	4	J	$
    F	LLLLL	Asia/Kolkata	5	J	$
    F	LLLLL	Asia/Kolkata	6	J	$
    F	LLLLL	Asia/Kolkata	7	M	$
    F	LLLLL	America/St_Johns	0	N	$
    F	LLLLL	America/St_Johns	1	F	$
    F	LLLLL	America/St_Johns	2	D	$
    F	LLLLL	America/St_Johns	3	D	$
    F	LLLLL	America/St_Johns	4	D	$
    F	LLLLL	America/St_Johns	5	J	$
    F	LLLLL	America/St_Johns	6	D	$
    F	LLLLL	America/St_Johns	7	F	$
    F	d	UTC	0	21	$
    F	d	UTC	1	29	$
    F	d	UTC	2	31	$
    F	d	UTC	3	1	$
    F	d	UTC	4	1	$
    F	d	UTC	5	4	$
    F	d	UTC	6	31	$
    F	d	UTC	7	1	$
    F	d	America/New_York	0	21	$
    F	d	America/New_York	1	28	$
    F	d	America/New_York	2	31	$
    F	d	America/New_York	3	31	$
    F	d	America/New_York	4	31	$
    F	d	America/New_York	5	4	$
    F	d	America/New_York	6	31	$
    F	d	America/New_York	7	28	$
    F	d	Asia/Kolkata	0	21	$
    F	d	Asia/Kolkata	1	29	$
    F	d	Asia/Kolkata	2	1	$
    F	d	Asia/Kolkata	3	1	$
    F	d	Asia/Kolkata	4	1	$
    F	d	Asia/Kolkata	5	4	$
    F	d	Asia/Kolkata	6	1	$
    F	d	Asia/Kolkata	7	1	$
    F	d	America/St_Johns	0	21	$
    F	d	America/St_Johns	1	28	$
    F	d	America/St_Johns	2	31	$
    F	d	America/St_Johns	3	31	$
    F	d	America/St_Johns	4	31	$
    F	d	America/St_Johns	5	4	$
    F	d	America/St_Johns	6	31	$
    F	d	America/St_Johns	7	28	$
    F	dd	UTC	0	21	$
    F	dd	UTC	1	29	$
    F	dd	UTC	2	31	$
    F	dd	UTC	3	01	$
    F	dd	UTC	4	01	$
    F	dd	UTC	5	04	$
    F	dd	UTC	6	31	$
    F	dd	UTC	7	01	$
    F	dd	America/New_York	0	21	$
    F	dd	America/New_York	1	28	$
    F	dd	America/New_York	2	31	$
    F	dd	America/New_York	3	31	$
    F	dd	America/New_York	4	31	$
    F	dd	America/New_York	5	04	$
    F	dd	America/New_York	6	31	$
    F	dd	America/New_York	7	28	$
    F	dd	Asia/Kolkata	0	21	$
    F	dd	Asia/Kolkata	1	29	$
    F	dd	Asia/Kolkata	2	01	$
    F	dd	Asia/Kolkata	3	01	$
    F	dd	Asia/Kolkata	4	01	$
    F	dd	Asia/Kolkata	5	04	$
    F	dd	Asia/Kolkata	6	01	$
    F	dd	Asia/Kolkata	7	01	$
    F	dd	America/St_Johns	0	21	$
    F	dd	America/St_Johns	1	28	$
    F	dd	America/St_Johns	2	31	$
    F	dd	America/St_Johns	3	31	$
    F	dd	America/St_Johns	4	31	$
    F	dd	America/St_Johns	5	04	$
    F	dd	America/St_Johns	6	31	$
    F	dd	America/St_Johns	7	28	$
    F	D	UTC	0	325	$
    F	D	UTC	1	60	$
    F	D	UTC	2	365	$
    F	D	UTC	3	1	$
    F	D	UTC	4	1	$
    F	D	UTC	5	185	$
    F	D	UTC	6	365	$
    F	D	UTC	7	60	$
    F	D	America/New_York	0	325	$
    F	D	America/New_York	1	59	$
    F	D	America/New_York	2	365	$
    F	D	America/New_York	3	365	$
    F	D	America/New_York	4	365	$
    F	D	America/New_York	5	185	$
    F	D	America/New_York	6	365	$
    F	D	America/New_York	7	59	$
    F	D	Asia/Kolkata	0	325	$
    F	D	Asia/Kolkata	1	60	$
    F	D	Asia/Kolkata	2	1	$
    F	D	Asia/Kolkata	3	1	$
    F	D	Asia/Kolkata	4	1	$
    F	D	Asia/Kolkata	5	185	$
    F	D	Asia/Kolkata	6	1	$
    F	D	Asia/Kolkata	7	60	$
    F	D	America/St_Johns	0	325	$
    F	D	America/St_Johns	1	59	$
    F	D	America/St_Johns	2	365	$
    F	D	America/St_Johns	3	365	$
    F	D	America/St_Johns	4	365	$
    F	D	America/St_Johns	5	185	$
    F	D	America/St_Johns	6	365	$
    F	D	America/St_Johns	7	59	$
    F	DD	UTC	0	325	$
    F	DD	UTC	1	60	$
    F	DD	UTC	2	365	$
    F	DD	UTC	3	01	$
    F	DD	UTC	4	01	$
    F	DD	UTC	5	185	$
    F	DD	UTC	6	365	$
    F	DD	UTC	7	60	$
    F	DD	America/New_York	0	325	$
    F	DD	America/New_York	1	59	$
    F	DD	America/New_York	2	365	$
    F	DD	America/New_York	3	365	$
    F	DD	America/New_York	4	365	$
    F	DD	America/New_York	5	185	$
    F	DD	America/New_York	6	365	$
    F	DD	America/New_York	7	59	$
    F	DD	Asia/Kolkata	0	325	$
    F	DD	Asia/Kolkata	1	60	$
    F	DD	Asia/Kolkata	2	01	$
    F	DD	Asia/Kolkata	3	01	$
    F	DD	Asia/Kolkata	4	01	$
    F	DD	Asia/Kolkata	5	185	$
    F	DD	Asia/Kolkata	6	01	$
    F	DD	Asia/Kolkata	7	60	$
    F	DD	America/St_Johns	0	325	$
    F	DD	America/St_Johns	1	59	$
    F	DD	America/St_Johns	2	365	$
    F	DD	America/St_Johns	3	365	$
    F	DD	America/St_Johns	4	365	$
    F	DD	America/St_Johns	5	185	$
    F	DD	America/St_Johns	6	365	$
    F	DD	America/St_Johns	7	59	$
    F	DDD	UTC	0	325	$
    F	DDD	UTC	1	060	$
    F	DDD	UTC	2	365	$
    F	DDD	UTC	3	001	$
    F	DDD	UTC	4	001	$
    F	DDD	UTC	5	185	$
    F	DDD	UTC	6	365	$
    F	DDD	UTC	7	060	$
    F	DDD	America/New_York	0	325	$
    F	DDD	America/New_York	1	059	$
    F	DDD	America/New_York	2	365	$
    F	DDD	America/New_York	3	365	$
    F	DDD	America/New_York	4	365	$
    F	DDD	America/New_York	5	185	$
    F	DDD	America/New_York	6	365	$
    F	DDD	America/New_York	7	059	$
    F	DDD	Asia/Kolkata	0	325	$
    F	DDD	Asia/Kolkata	1	060	$
    F	DDD	Asia/Kolkata	2	001	$
    F	DDD	Asia/Kolkata	3	001	$
    F	DDD	Asia/Kolkata	4	001	$
    F	DDD	Asia/Kolkata	5	185	$
    F	DDD	Asia/Kolkata	6	001	$
    F	DDD	Asia/Kolkata	7	060	$
    F	DDD	America/St_Johns	0	325	$
    F	DDD	America/St_Johns	1	059	$
    F	DDD	America/St_Johns	2	365	$
    F	DDD	America/St_Johns	3	365	$
    F	DDD	America/St_Johns	4	365	$
    F	DDD	America/St_Johns	5	185	$
    F	DDD	America/St_Johns	6	365	$
    F	DDD	America/St_Johns	7	059	$
    F	H	UTC	0	13	$
    F	H	UTC	1	0	$
    F	H	UTC	2	23	$
    F	H	UTC	3	0	$
    F	H	UTC	4	0	$
    F	H	UTC	5	12	$
    F	H	UTC	6	23	$
    F	H	UTC	7	0	$
    F	H	America/New_York	0	8	$
    F	H	America/New_York	1	19	$
    F	H	America/New_York	2	18	$
    F	H	America/New_York	3	19	$
    F	H	America/New_York	4	19	$
    F	H	America/New_York	5	8	$
    F	H	America/New_York	6	18	$
    F	H	America/New_York	7	19	$
    F	H	Asia/Kolkata	0	18	$
    F	H	Asia/Kolkata	1	5	$
    F	H	Asia/Kolkata	2	5	$
    F	H	Asia/Kolkata	3	5	$
    F	H	Asia/Kolkata	4	5	$
    F	H	Asia/Kolkata	5	18	$
    F	H	Asia/Kolkata	6	5	$
    F	H	Asia/Kolkata	7	5	$
    F	H	America/St_Johns	0	9	$
    F	H	America/St_Johns	1	20	$
    F	H	America/St_Johns	2	20	$
    F	H	America/St_Johns	3	20	$
    F	H	America/St_Johns	4	20	$
    F	H	America/St_Johns	5	10	$
    F	H	America/St_Johns	6	20	$
    F	H	America/St_Johns	7	20	$
    F	HH	UTC	0	13	$
    F	HH	UTC	1	00	$
    F	HH	UTC	2	23	$
    F	HH	UTC	3	00	$
    F	HH	UTC	4	00	$
    F	HH	UTC	5	12	$
    F	HH	UTC	6	23	$
    F	HH	UTC	7	00	$
    F	HH	America/New_York	0	08	$
    F	HH	America/New_York	1	19	$
    F	HH	America/New_York	2	18	$
    F	HH	America/New_York	3	19	$
    F	HH	America/New_York	4	19	$
    F	HH	America/New_York	5	08	$
    F	HH	America/New_York	6	18	$
    F	HH	America/New_York	7	19	$
    F	HH	Asia/Kolkata	0	18	$
    F	HH	Asia/Kolkata	1	05	$
    F	HH	Asia/Kolkata	2	05	$
    F	HH	Asia/Kolkata	3	05	$
    F	HH	Asia/Kolkata	4	05	$
    F	HH	Asia/Kolkata	5	18	$
    F	HH	Asia/Kolkata	6	05	$
    F	HH	Asia/Kolkata	7	05	$
    F	HH	America/St_Johns	0	09	$
    F	HH	America/St_Johns	1	20	$
    F	HH	America/St_Johns	2	20	$
    F	HH	America/St_Johns	3	20	$
    F	HH	America/St_Johns	4	20	$
    F	HH	America/St_Johns	5	10	$
    F	HH	America/St_Johns	6	20	$
    F	HH	America/St_Johns	7	20	$
    F	h	UTC	0	1	$
    F	h	UTC	1	12	$
    F	h	UTC	2	11	$
    F	h	UTC	3	12	$
    F	h	UTC	4	12	$
    F	h	UTC	5	12	$
    F	h	UTC	6	11	$
    F	h	UTC	7	12	$
    F	h	America/New_York	0	8	$
    F	h	America/New_York	1	7	$
    F	h	America/New_York	2	6	$
    F	h	America/New_York	3	7	$
    F	h	America/New_York	4	7	$
    F	h	America/New_York	5	8	$
    F	h	America/New_York	6	6	$
    F	h	America/New_York	7	7	$
    F	h	Asia/Kolkata	0	6	$
    F	h	Asia/Kolkata	1	5	$
    F	h	Asia/Kolkata	2	5	$
    F	h	Asia/Kolkata	3	5	$
    F	h	Asia/Kolkata	4	5	$
    F	h	Asia/Kolkata	5	6	$
    F	h	Asia/Kolkata	6	5	$
    F	h	Asia/Kolkata	7	5	$
    F	h	America/St_Johns	0	9	$
    F	h	America/St_Johns	1	8	$
    F	h	America/St_Johns	2	8	$
    F	h	America/St_Johns	3	8	$
    F	h	America/St_Johns	4	8	$
    F	h	America/St_Johns	5	10	$
    F	h	America/St_Johns	6	8	$
    F	h	America/St_Johns	7	8	$
    F	hh	UTC	0	01	$
    F	hh	UTC	1	12	$
    F	hh	UTC	2	11	$
    F	hh	UTC	3	12	$
    F	hh	UTC	4	12	$
    F	hh	UTC	5	12	$
    F	hh	UTC	6	11	$
    F	hh	UTC	7	12	$
    F	hh	America/New_York	0	08	$
    F	hh	America/New_York	1	07	$
    F	hh	America/New_York	2	06	$
    F	hh	America/New_York	3	07	$
    F	hh	America/New_York	4	07	$
    F	hh	America/New_York	5	08	$
    F	hh	America/New_York	6	06	$
    F	hh	America/New_York	7	07	$
    F	hh	Asia/Kolkata	0	06	$
    F	hh	Asia/Kolkata	1	05	$
    F	hh	Asia/Kolkata	2	05	$
    F	hh	Asia/Kolkata	3	05	$
    F	hh	Asia/Kolkata	4	05	$
    F	hh	Asia/Kolkata	5	06	$
    F	hh	Asia/Kolkata	6	05	$
    F	hh	Asia/Kolkata	7	05	$
    F	hh	America/St_Johns	0	09	$
    F	hh	America/St_Johns	1	08	$
    F	hh	America/St_Johns	2	08	$
    F	hh	America/St_Johns	3	08	$
    F	hh	America/St_Johns	4	08	$
    F	hh	America/St_Johns	5	10	$
    F	hh	America/St_Johns	6	08	$
    F	hh	America/St_Johns	7	08	$
    F	k	UTC	0	13	$
    F	k	UTC	1	24	$
    F	k	UTC	2	23	$
    F	k	UTC	3	24	$
    F	k	UTC	4	24	$
    F	k	UTC	5	12	$
    F	k	UTC	6	23	$
    F	k	UTC	7	24	$
    F	k	America/New_York	0	8	$
    F	k	America/New_York	1	19	$
    F	k	America/New_York	2	18	$
    F	k	America/New_York	3	19	$
    F	k	America/New_York	4	19	$
    F	k	America/New_York	5	8	$
    F	k	America/New_York	6	18	$
    F	k	America/New_York	7	19	$
    F	k	Asia/Kolkata	0	18	$
    F	k	Asia/Kolkata	1	5	$
    F	k	Asia/Kolkata	2	5	$
    F	k	Asia/Kolkata	3	5	$
    F	k	Asia/Kolkata	4	5	$
    F	k	Asia/Kolkata	5	18	$
    F	k	Asia/Kolkata	6	5	$
    F	k	Asia/Kolkata	7	5	$
    F	k	America/St_Johns	0	9	$
    F	k	America/St_Johns	1	20	$
    F	k	America/St_Johns	2	20	$
    F	k	America/St_Johns	3	20	$
    F	k	America/St_Johns	4	20	$
    F	k	America/St_Johns	5	10	$
    F	k	America/St_Johns	6	20	$
    F	k	America/St_Johns	7	20	$
    F	kk	UTC	0	13	$
    F	kk	UTC	1	24	$
    F	kk	UTC	2	23	$
    F	kk	UTC	3	24	$
    F	kk	UTC	4	24	$
    F	kk	UTC	5	12	$
    F	kk	UTC	6	23	$
    F	kk	UTC	7	24	$
    F	kk	America/New_York	0	08	$
    F	kk	America/New_York	1	19	$
    F	kk	America/New_York	2	18	$
    F	kk	America/New_York	3	19	$
    F	kk	America/New_York	4	19	$
    F	kk	America/New_York	5	08	$
    F	kk	America/New_York	6	18	$
    F	kk	America/New_York	7	19	$
    F	kk	Asia/Kolkata	0	18	$
    F	kk	Asia/Kolkata	1	05	$
    F	kk	Asia/Kolkata	2	05	$
    F	kk	Asia/Kolkata	3	05	$
    F	kk	Asia/Kolkata	4	05	$
    F	kk	Asia/Kolkata	5	18	$
    F	kk	Asia/Kolkata	6	05	$
    F	kk	Asia/Kolkata	7	05	$
    F	kk	America/St_Johns	0	09	$
    F	kk	America/St_Johns	1	20	$
    F	kk	America/St_Johns	2	20	$
    F	kk	America/St_Johns	3	20	$
    F	kk	America/St_Johns	4	20	$
    F	kk	America/St_Johns	5	10	$
    F	kk	America/St_Johns	6	20	$
    F	kk	America/St_Johns	7	20	$
    F	K	UTC	0	1	$
    F	K	UTC	1	0	$
    F	K	UTC	2	11	$
    F	K	UTC	3	0	$
    F	K	UTC	4	0	$
    F	K	UTC	5	0	$
    F	K	UTC	6	11	$
    F	K	UTC	7	0	$
    F	K	America/New_York	0	8	$
    F	K	America/New_York	1	7	$
    F	K	America/New_York	2	6	$
    F	K	America/New_York	3	7	$
    F	K	America/New_York	4	7	$
    F	K	America/New_York	5	8	$
    F	K	America/New_York	6	6	$
    F	K	America/New_York	7	7	$
    F	K	Asia/Kolkata	0	6	$
    F	K	Asia/Kolkata	1	5	$
    F	K	Asia/Kolkata	2	5	$
    F	K	Asia/Kolkata	3	5	$
    F	K	Asia/Kolkata	4	5	$
    F	K	Asia/Kolkata	5	6	$
    F	K	Asia/Kolkata	6	5	$
    F	K	Asia/Kolkata	7	5	$
    F	K	America/St_Johns	0	9	$
    F	K	America/St_Johns	1	8	$
    F	K	America/St_Johns	2	8	$
    F	K	America/St_Johns	3	8	$
    F	K	America/St_Johns	4	8	$
    F	K	America/St_Johns	5	10	$
    F	K	America/St_Johns	6	8	$
    F	K	America/St_Johns	7	8	$
    F	KK	UTC	0	01	$
    F	KK	UTC	1	00	$
    F	KK	UTC	2	11	$
    F	KK	UTC	3	00	$
    F	KK	UTC	4	00	$
    F	KK	UTC	5	00	$
    F	KK	UTC	6	11	$
    F	KK	UTC	7	00	$
    F	KK	America/New_York	0	08	$
    F	KK	America/New_York	1	07	$
    F	KK	America/New_York	2	06	$
    F	KK	America/New_York	3	07	$
    F	KK	America/New_York	4	07	$
    F	KK	America/New_York	5	08	$
    F	KK	America/New_York	6	06	$
    F	KK	America/New_York	7	07	$
    F	KK	Asia/Kolkata	0	06	$
    F	KK	Asia/Kolkata	1	05	$
    F	KK	Asia/Kolkata	2	05	$
    F	KK	Asia/Kolkata	3	05	$
    F	KK	Asia/Kolkata	4	05	$
    F	KK	Asia/Kolkata	5	06	$
    F	KK	Asia/Kolkata	6	05	$
    F	KK	Asia/Kolkata	7	05	$
    F	KK	America/St_Johns	0	09	$
    F	KK	America/St_Johns	1	08	$
    F	KK	America/St_Johns	2	08	$
    F	KK	America/St_Johns	3	08	$
    F	KK	America/St_Johns	4	08	$
    F	KK	America/St_Johns	5	10	$
    F	KK	America/St_Johns	6	08	$
    F	KK	America/St_Johns	7	08	$
    F	m	UTC	0	5	$
    F	m	UTC	1	0	$
    F	m	UTC	2	59	$
    F	m	UTC	3	0	$
    F	m	UTC	4	0	$
    F	m	UTC	5	30	$
    F	m	UTC	6	59	$
    F	m	UTC	7	7	$
    F	m	America/New_York	0	5	$
    F	m	America/New_York	1	0	$
    F	m	America/New_York	2	59	$
    F	m	America/New_York	3	0	$
    F	m	America/New_York	4	0	$
    F	m	America/New_York	5	30	$
    F	m	America/New_York	6	59	$
    F	m	America/New_York	7	7	$
    F	m	Asia/Kolkata	0	35	$
    F	m	Asia/Kolkata	1	30	$
    F	m	Asia/Kolkata	2	29	$
    F	m	Asia/Kolkata	3	30	$
    F	m	Asia/Kolkata	4	30	$
    F	m	Asia/Kolkata	5	0	$
    F	m	Asia/Kolkata	6	29	$
    F	m	Asia/Kolkata	7	37	$
    F	m	America/St_Johns	0	35	$
    F	m	America/St_Johns	1	30	$
    F	m	America/St_Johns	2	29	$
    F	m	America/St_Johns	3	30	$
    F	m	America/St_Johns	4	30	$
    F	m	America/St_Johns	5	0	$
    F	m	America/St_Johns	6	29	$
    F	m	America/St_Johns	7	37	$
    F	mm	UTC	0	05	$
    F	mm	UTC	1	00	$
    F	mm	UTC	2	59	$
    F	mm	UTC	3	00	$
    F	mm	UTC	4	00	$
    F	mm	UTC	5	30	$
    F	mm	UTC	6	59	$
    F	mm	UTC	7	07	$
    F	mm	America/New_York	0	05	$
    F	mm	America/New_York	1	00	$
    F	mm	America/New_York	2	59	$
    F	mm	America/New_York	3	00	$
    F	mm	America/New_York	4	00	$
    F	mm	America/New_York	5	30	$
    F	mm	America/New_York	6	59	$
    F	mm	America/New_York	7	07	$
    F	mm	Asia/Kolkata	0	35	$
    F	mm	Asia/Kolkata	1	30	$
    F	mm	Asia/Kolkata	2	29	$
    F	mm	Asia/Kolkata	3	30	$
    F	mm	Asia/Kolkata	4	30	$
    F	mm	Asia/Kolkata	5	00	$
    F	mm	Asia/Kolkata	6	29	$
    F	mm	Asia/Kolkata	7	37	$
    F	mm	America/St_Johns	0	35	$
    F	mm	America/St_Johns	1	30	$
    F	mm	America/St_Johns	2	29	$
    F	mm	America/St_Johns	3	30	$
    F	mm	America/St_Johns	4	30	$
    F	mm	America/St_Johns	5	00	$
    F	mm	America/St_Johns	6	29	$
    F	mm	America/St_Johns	7	37	$
    F	s	UTC	0	9	$
    F	s	UTC	1	0	$
    F	s	UTC	2	59	$
    F	s	UTC	3	0	$
    F	s	UTC	4	0	$
    F	s	UTC	5	0	$
    F	s	UTC	6	59	$
    F	s	UTC	7	0	$
    F	s	America/New_York	0	9	$
    F	s	America/New_York	1	0	$
    F	s	America/New_York	2	59	$
    F	s	America/New_York	3	0	$
    F	s	America/New_York	4	0	$
    F	s	America/New_York	5	0	$
    F	s	America/New_York	6	59	$
    F	s	America/New_York	7	0	$
    F	s	Asia/Kolkata	0	9	$
    F	s	Asia/Kolkata	1	0	$
    F	s	Asia/Kolkata	2	59	$
    F	s	Asia/Kolkata	3	0	$
    F	s	Asia/Kolkata	4	0	$
    F	s	Asia/Kolkata	5	0	$
    F	s	Asia/Kolkata	6	59	$
    F	s	Asia/Kolkata	7	0	$
    F	s	America/St_Johns	0	9	$
    F	s	America/St_Johns	1	0	$
    F	s	America/St_Johns	2	59	$
    F	s	America/St_Johns	3	0	$
    F	s	America/St_Johns	4	0	$
    F	s	America/St_Johns	5	0	$
    F	s	America/St_Johns	6	59	$
    F	s	America/St_Johns	7	0	$
    F	ss	UTC	0	09	$
    F	ss	UTC	1	00	$
    F	ss	UTC	2	59	$
    F	ss	UTC	3	00	$
    F	ss	UTC	4	00	$
    F	ss	UTC	5	00	$
    F	ss	UTC	6	59	$
    F	ss	UTC	7	00	$
    F	ss	America/New_York	0	09	$
    F	ss	America/New_York	1	00	$
    F	ss	America/New_York	2	59	$
    F	ss	America/New_York	3	00	$
    F	ss	America/New_York	4	00	$
    F	ss	America/New_York	5	00	$
    F	ss	America/New_York	6	59	$
    F	ss	America/New_York	7	00	$
    F	ss	Asia/Kolkata	0	09	$
    F	ss	Asia/Kolkata	1	00	$
    F	ss	Asia/Kolkata	2	59	$
    F	ss	Asia/Kolkata	3	00	$
    F	ss	Asia/Kolkata	4	00	$
    F	ss	Asia/Kolkata	5	00	$
    F	ss	Asia/Kolkata	6	59	$
    F	ss	Asia/Kolkata	7	00	$
    F	ss	America/St_Johns	0	09	$
    F	ss	America/St_Johns	1	00	$
    F	ss	America/St_Johns	2	59	$
    F	ss	America/St_Johns	3	00	$
    F	ss	America/St_Johns	4	00	$
    F	ss	America/St_Johns	5	00	$
    F	ss	America/St_Johns	6	59	$
    F	ss	America/St_Johns	7	00	$
    F	S	UTC	0	1	$
    F	S	UTC	1	0	$
    F	S	UTC	2	9	$
    F	S	UTC	3	0	$
    F	S	UTC	4	0	$
    F	S	UTC	5	5	$
    F	S	UTC	6	2	$
    F	S	UTC	7	0	$
    F	S	America/New_York	0	1	$
    F	S	America/New_York	1	0	$
    F	S	America/New_York	2	9	$
    F	S	America/New_York	3	0	$
    F	S	America/New_York	4	0	$
    F	S	America/New_York	5	5	$
    F	S	America/New_York	6	2	$
    F	S	America/New_York	7	0	$
    F	S	Asia/Kolkata	0	1	$
    F	S	Asia/Kolkata	1	0	$
    F	S	Asia/Kolkata	2	9	$
    F	S	Asia/Kolkata	3	0	$
    F	S	Asia/Kolkata	4	0	$
    F	S	Asia/Kolkata	5	5	$
    F	S	Asia/Kolkata	6	2	$
    F	S	Asia/Kolkata	7	0	$
    F	S	America/St_Johns	0	1	$
    F	S	America/St_Johns	1	0	$
    F	S	America/St_Johns	2	9	$
    F	S	America/St_Johns	3	0	$
    F	S	America/St_Johns	4	0	$
    F	S	America/St_Johns	5	5	$
    F	S	America/St_Johns	6	2	$
    F	S	America/St_Johns	7	0	$
    F	SS	UTC	0	12	$
    F	SS	UTC	1	00	$
    F	SS	UTC	2	99	$
    F	SS	UTC	3	00	$
    F	SS	UTC	4	00	$
    F	SS	UTC	5	50	$
    F	SS	UTC	6	25	$
    F	SS	UTC	7	00	$
    F	SS	America/New_York	0	12	$
    F	SS	America/New_York	1	00	$
    F	SS	America/New_York	2	99	$
    F	SS	America/New_York	3	00	$
    F	SS	America/New_York	4	00	$
    F	SS	America/New_York	5	50	$
    F	SS	America/New_York	6	25	$
    F	SS	America/New_York	7	00	$
    F	SS	Asia/Kolkata	0	12	$
    F	SS	Asia/Kolkata	1	00	$
    F	SS	Asia/Kolkata	2	99	$
    F	SS	Asia/Kolkata	3	00	$
    F	SS	Asia/Kolkata	4	00	$
    F	SS	Asia/Kolkata	5	50	$
    F	SS	Asia/Kolkata	6	25	$
    F	SS	Asia/Kolkata	7	00	$
    F	SS	America/St_Johns	0	12	$
    F	SS	America/St_Johns	1	00	$
    F	SS	America/St_Johns	2	99	$
    F	SS	America/St_Johns	3	00	$
    F	SS	America/St_Johns	4	00	$
    F	SS	America/St_Johns	5	50	$
    F	SS	America/St_Johns	6	25	$
    F	SS	America/St_Johns	7	00	$
    F	SSS	UTC	0	123	$
    F	SSS	UTC	1	000	$
    F	SSS	UTC	2	999	$
    F	SSS	UTC	3	000	$
    F	SSS	UTC	4	000	$
    F	SSS	UTC	5	500	$
    F	SSS	UTC	6	250	$
    F	SSS	UTC	7	000	$
    F	SSS	America/New_York	0	123	$
    F	SSS	America/New_York	1	000	$
    F	SSS	America/New_York	2	999	$
    F	SSS	America/New_York	3	000	$
    F	SSS	America/New_York	4	000	$
    F	SSS	America/New_York	5	500	$
    F	SSS	America/New_York	6	250	$
    F	SSS	America/New_York	7	000	$
    F	SSS	Asia/Kolkata	0	123	$
    F	SSS	Asia/Kolkata	1	000	$
    F	SSS	Asia/Kolkata	2	999	$
    F	SSS	Asia/Kolkata	3	000	$
    F	SSS	Asia/Kolkata	4	000	$
    F	SSS	Asia/Kolkata	5	500	$
    F	SSS	Asia/Kolkata	6	250	$
    F	SSS	Asia/Kolkata	7	000	$
    F	SSS	America/St_Johns	0	123	$
    F	SSS	America/St_Johns	1	000	$
    F	SSS	America/St_Johns	2	999	$
    F	SSS	America/St_Johns	3	000	$
    F	SSS	America/St_Johns	4	000	$
    F	SSS	America/St_Johns	5	500	$
    F	SSS	America/St_Johns	6	250	$
    F	SSS	America/St_Johns	7	000	$
    F	SSSSSS	UTC	0	123456	$
    F	SSSSSS	UTC	1	000000	$
    F	SSSSSS	UTC	2	999999	$
    F	SSSSSS	UTC	3	000000	$
    F	SSSSSS	UTC	4	000000	$
    F	SSSSSS	UTC	5	500000	$
    F	SSSSSS	UTC	6	250000	$
    F	SSSSSS	UTC	7	000000	$
    F	SSSSSS	America/New_York	0	123456	$
    F	SSSSSS	America/New_York	1	000000	$
    F	SSSSSS	America/New_York	2	999999	$
    F	SSSSSS	America/New_York	3	000000	$
    F	SSSSSS	America/New_York	4	000000	$
    F	SSSSSS	America/New_York	5	500000	$
    F	SSSSSS	America/New_York	6	250000	$
    F	SSSSSS	America/New_York	7	000000	$
    F	SSSSSS	Asia/Kolkata	0	123456	$
    F	SSSSSS	Asia/Kolkata	1	000000	$
    F	SSSSSS	Asia/Kolkata	2	999999	$
    F	SSSSSS	Asia/Kolkata	3	000000	$
    F	SSSSSS	Asia/Kolkata	4	000000	$
    F	SSSSSS	Asia/Kolkata	5	500000	$
    F	SSSSSS	Asia/Kolkata	6	250000	$
    F	SSSSSS	Asia/Kolkata	7	000000	$
    F	SSSSSS	America/St_Johns	0	123456	$
    F	SSSSSS	America/St_Johns	1	000000	$
    F	SSSSSS	America/St_Johns	2	999999	$
    F	SSSSSS	America/St_Johns	3	000000	$
    F	SSSSSS	America/St_Johns	4	000000	$
    F	SSSSSS	America/St_Johns	5	500000	$
    F	SSSSSS	America/St_Johns	6	250000	$
    F	SSSSSS	America/St_Johns	7	000000	$
    F	SSSSSSSSS	UTC	0	123456000	$
    F	SSSSSSSSS	UTC	1	000000000	$
    F	SSSSSSSSS	UTC	2	999999000	$
    F	SSSSSSSSS	UTC	3	000000000	$
    F	SSSSSSSSS	UTC	4	000000000	$
    F	SSSSSSSSS	UTC	5	500000000	$
    F	SSSSSSSSS	UTC	6	250000000	$
    F	SSSSSSSSS	UTC	7	000000000	$
    F	SSSSSSSSS	America/New_York	0	123456000	$
    F	SSSSSSSSS	America/New_York	1	000000000	$
    F	SSSSSSSSS	America/New_York	2	999999000	$
    F	SSSSSSSSS	America/New_York	3	000000000	$
    F	SSSSSSSSS	America/New_York	4	000000000	$
    F	SSSSSSSSS	America/New_York	5	500000000	$
    F	SSSSSSSSS	America/New_York	6	250000000	$
    F	SSSSSSSSS	America/New_York	7	000000000	$
    F	SSSSSSSSS	Asia/Kolkata	0	123456000	$
    F	SSSSSSSSS	Asia/Kolkata	1	000000000	$
    F	SSSSSSSSS	Asia/Kolkata	2	999999000	$
    F	SSSSSSSSS	Asia/Kolkata	3	000000000	$
    F	SSSSSSSSS	Asia/Kolkata	4	000000000	$
    F	SSSSSSSSS	Asia/Kolkata	5	500000000	$
    F	SSSSSSSSS	Asia/Kolkata	6	250000000	$
    F	SSSSSSSSS	Asia/Kolkata	7	000000000	$
    F	SSSSSSSSS	America/St_Johns	0	123456000	$
    F	SSSSSSSSS	America/St_Johns	1	000000000	$
    F	SSSSSSSSS	America/St_Johns	2	999999000	$
    F	SSSSSSSSS	America/St_Johns	3	000000000	$
    F	SSSSSSSSS	America/St_Johns	4	000000000	$
    F	SSSSSSSSS	America/St_Johns	5	500000000	$
    F	SSSSSSSSS	America/St_Johns	6	250000000	$
    F	SSSSSSSSS	America/St_Johns	7	000000000	$
    F	a	UTC	0	PM	$
    F	a	UTC	1	AM	$
    F	a	UTC	2	PM	$
    F	a	UTC	3	AM	$
    F	a	UTC	4	AM	$
    F	a	UTC	5	PM	$
    F	a	UTC	6	PM	$
    F	a	UTC	7	AM	$
    F	a	America/New_York	0	AM	$
    F	a	America/New_York	1	PM	$
    F	a	America/New_York	2	PM	$
    F	a	America/New_York	3	PM	$
    F	a	America/New_York	4	PM	$
    F	a	America/New_York	5	AM	$
    F	a	America/New_York	6	PM	$
    F	a	America/New_York	7	PM	$
    F	a	Asia/Kolkata	0	PM	$
    F	a	Asia/Kolkata	1	AM	$
    F	a	Asia/Kolkata	2	AM	$
    F	a	Asia/Kolkata	3	AM	$
    F	a	Asia/Kolkata	4	AM	$
    F	a	Asia/Kolkata	5	PM	$
    F	a	Asia/Kolkata	6	AM	$
    F	a	Asia/Kolkata	7	AM	$
    F	a	America/St_Johns	0	AM	$
    F	a	America/St_Johns	1	PM	$
    F	a	America/St_Johns	2	PM	$
    F	a	America/St_Johns	3	PM	$
    F	a	America/St_Johns	4	PM	$
    F	a	America/St_Johns	5	AM	$
    F	a	America/St_Johns	6	PM	$
    F	a	America/St_Johns	7	PM	$
    F	E	UTC	0	Sat	$
    F	E	UTC	1	Thu	$
    F	E	UTC	2	Sun	$
    F	E	UTC	3	Sat	$
    F	E	UTC	4	Thu	$
    F	E	UTC	5	Sat	$
    F	E	UTC	6	Wed	$
    F	E	UTC	7	Mon	$
    F	E	America/New_York	0	Sat	$
    F	E	America/New_York	1	Wed	$
    F	E	America/New_York	2	Sun	$
    F	E	America/New_York	3	Fri	$
    F	E	America/New_York	4	Wed	$
    F	E	America/New_York	5	Sat	$
    F	E	America/New_York	6	Wed	$
    F	E	America/New_York	7	Sun	$
    F	E	Asia/Kolkata	0	Sat	$
    F	E	Asia/Kolkata	1	Thu	$
    F	E	Asia/Kolkata	2	Mon	$
    F	E	Asia/Kolkata	3	Sat	$
    F	E	Asia/Kolkata	4	Thu	$
    F	E	Asia/Kolkata	5	Sat	$
    F	E	Asia/Kolkata	6	Thu	$
    F	E	Asia/Kolkata	7	Mon	$
    F	E	America/St_Johns	0	Sat	$
    F	E	America/St_Johns	1	Wed	$
    F	E	America/St_Johns	2	Sun	$
    F	E	America/St_Johns	3	Fri	$
    F	E	America/St_Johns	4	Wed	$
    F	E	America/St_Johns	5	Sat	$
    F	E	America/St_Johns	6	Wed	$
    F	E	America/St_Johns	7	Sun	$
    F	EE	UTC	0	Sat	$
    F	EE	UTC	1	Thu	$
    F	EE	UTC	2	Sun	$
    F	EE	UTC	3	Sat	$
    F	EE	UTC	4	Thu	$
    F	EE	UTC	5	Sat	$
    F	EE	UTC	6	Wed	$
    F	EE	UTC	7	Mon	$
    F	EE	America/New_York	0	Sat	$
    F	EE	America/New_York	1	Wed	$
    F	EE	America/New_York	2	Sun	$
    F	EE	America/New_York	3	Fri	$
    F	EE	America/New_York	4	Wed	$
    F	EE	America/New_York	5	Sat	$
    F	EE	America/New_York	6	Wed	$
    F	EE	America/New_York	7	Sun	$
    F	EE	Asia/Kolkata	0	Sat	$
    F	EE	Asia/Kolkata	1	Thu	$
    F	EE	Asia/Kolkata	2	Mon	$
    F	EE	Asia/Kolkata	3	Sat	$
    F	EE	Asia/Kolkata	4	Thu	$
    F	EE	Asia/Kolkata	5	Sat	$
    F	EE	Asia/Kolkata	6	Thu	$
    F	EE	Asia/Kolkata	7	Mon	$
    F	EE	America/St_Johns	0	Sat	$
    F	EE	America/St_Johns	1	Wed	$
    F	EE	America/St_Johns	2	Sun	$
    F	EE	America/St_Johns	3	Fri	$
    F	EE	America/St_Johns	4	Wed	$
    F	EE	America/St_Johns	5	Sat	$
    F	EE	America/St_Johns	6	Wed	$
    F	EE	America/St_Johns	7	Sun	$
    F	EEE	UTC	0	Sat	$
    F	EEE	UTC	1	Thu	$
    F	EEE	UTC	2	Sun	$
    F	EEE	UTC	3	Sat	$
    F	EEE	UTC	4	Thu	$
    F	EEE	UTC	5	Sat	$
    F	EEE	UTC	6	Wed	$
    F	EEE	UTC	7	Mon	$
    F	EEE	America/New_York	0	Sat	$
    F	EEE	America/New_York	1	Wed	$
    F	EEE	America/New_York	2	Sun	$
    F	EEE	America/New_York	3	Fri	$
    F	EEE	America/New_York	4	Wed	$
    F	EEE	America/New_York	5	Sat	$
    F	EEE	America/New_York	6	Wed	$
    F	EEE	America/New_York	7	Sun	$
    F	EEE	Asia/Kolkata	0	Sat	$
    F	EEE	Asia/Kolkata	1	Thu	$
    F	EEE	Asia/Kolkata	2	Mon	$
    F	EEE	Asia/Kolkata	3	Sat	$
    F	EEE	Asia/Kolkata	4	Thu	$
    F	EEE	Asia/Kolkata	5	Sat	$
    F	EEE	Asia/Kolkata	6	Thu	$
    F	EEE	Asia/Kolkata	7	Mon	$
    F	EEE	America/St_Johns	0	Sat	$
    F	EEE	America/St_Johns	1	Wed	$
    F	EEE	America/St_Johns	2	Sun	$
    F	EEE	America/St_Johns	3	Fri	$
    F	EEE	America/St_Johns	4	Wed	$
    F	EEE	America/St_Johns	5	Sat	$
    F	EEE	America/St_Johns	6	Wed	$
    F	EEE	America/St_Johns	7	Sun	$
    F	EEEE	UTC	0	Saturday	$
    F	EEEE	UTC	1	Thursday	$
    F	EEEE	UTC	2	Sunday	$
    F	EEEE	UTC	3	Saturday	$
    F	EEEE	UTC	4	Thursday	$
    F	EEEE	UTC	5	Saturday	$
    F	EEEE	UTC	6	Wednesday	$
    F	EEEE	UTC	7	Monday	$
    F	EEEE	America/New_York	0	Saturday	$
    F	EEEE	America/New_York	1	Wednesday	$
    F	EEEE	America/New_York	2	Sunday	$
    F	EEEE	America/New_York	3	Friday	$
    F	EEEE	America/New_York	4	Wednesday	$
    F	EEEE	America/New_York	5	Saturday	$
    F	EEEE	America/New_York	6	Wednesday	$
    F	EEEE	America/New_York	7	Sunday	$
    F	EEEE	Asia/Kolkata	0	Saturday	$
    F	EEEE	Asia/Kolkata	1	Thursday	$
    F	EEEE	Asia/Kolkata	2	Monday	$
    F	EEEE	Asia/Kolkata	3	Saturday	$
    F	EEEE	Asia/Kolkata	4	Thursday	$
    F	EEEE	Asia/Kolkata	5	Saturday	$
    F	EEEE	Asia/Kolkata	6	Thursday	$
    F	EEEE	Asia/Kolkata	7	Monday	$
    F	EEEE	America/St_Johns	0	Saturday	$
    F	EEEE	America/St_Johns	1	Wednesday	$
    F	EEEE	America/St_Johns	2	Sunday	$
    F	EEEE	America/St_Johns	3	Friday	$
    F	EEEE	America/St_Johns	4	Wednesday	$
    F	EEEE	America/St_Johns	5	Saturday	$
    F	EEEE	America/St_Johns	6	Wednesday	$
    F	EEEE	America/St_Johns	7	Sunday	$
    F	EEEEE	UTC	0	S	$
    F	EEEEE	UTC	1	T	$
    F	EEEEE	UTC	2	S	$
    F	EEEEE	UTC	3	S	$
    F	EEEEE	UTC	4	T	$
    F	EEEEE	UTC	5	S	$
    F	EEEEE	UTC	6	W	$
    F	EEEEE	UTC	7	M	$
    F	EEEEE	America/New_York	0	S	$
    F	EEEEE	America/New_York	1	W	$
    F	EEEEE	America/New_York	2	S	$
    F	EEEEE	America/New_York	3	F	$
    F	EEEEE	America/New_York	4	W	$
    F	EEEEE	America/New_York	5	S	$
    F	EEEEE	America/New_York	6	W	$
    F	EEEEE	America/New_York	7	S	$
    F	EEEEE	Asia/Kolkata	0	S	$
    F	EEEEE	Asia/Kolkata	1	T	$
    F	EEEEE	Asia/Kolkata	2	M	$
    F	EEEEE	Asia/Kolkata	3	S	$
    F	EEEEE	Asia/Kolkata	4	T	$
    F	EEEEE	Asia/Kolkata	5	S	$
    F	EEEEE	Asia/Kolkata	6	T	$
    F	EEEEE	Asia/Kolkata	7	M	$
    F	EEEEE	America/St_Johns	0	S	$
    F	EEEEE	America/St_Johns	1	W	$
    F	EEEEE	America/St_Johns	2	S	$
    F	EEEEE	America/St_Johns	3	F	$
    F	EEEEE	America/St_Johns	4	W	$
    F	EEEEE	America/St_Johns	5	S	$
    F	EEEEE	America/St_Johns	6	W	$
    F	EEEEE	America/St_Johns	7	S	$
    F	G	UTC	0	AD	$
    F	G	UTC	1	AD	$
    F	G	UTC	2	AD	$
    F	G	UTC	3	AD	$
    F	G	UTC	4	AD	$
    F	G	UTC	5	AD	$
    F	G	UTC	6	AD	$
    F	G	UTC	7	AD	$
    F	G	America/New_York	0	AD	$
    F	G	America/New_York	1	AD	$
    F	G	America/New_York	2	AD	$
    F	G	America/New_York	3	AD	$
    F	G	America/New_York	4	AD	$
    F	G	America/New_York	5	AD	$
    F	G	America/New_York	6	AD	$
    F	G	America/New_York	7	AD	$
    F	G	Asia/Kolkata	0	AD	$
    F	G	Asia/Kolkata	1	AD	$
    F	G	Asia/Kolkata	2	AD	$
    F	G	Asia/Kolkata	3	AD	$
    F	G	Asia/Kolkata	4	AD	$
    F	G	Asia/Kolkata	5	AD	$
    F	G	Asia/Kolkata	6	AD	$
    F	G	Asia/Kolkata	7	AD	$
    F	G	America/St_Johns	0	AD	$
    F	G	America/St_Johns	1	AD	$
    F	G	America/St_Johns	2	AD	$
    F	G	America/St_Johns	3	AD	$
    F	G	America/St_Johns	4	AD	$
    F	G	America/St_Johns	5	AD	$
    F	G	America/St_Johns	6	AD	$
    F	G	America/St_Johns	7	AD	$
    F	GG	UTC	0	AD	$
    F	GG	UTC	1	AD	$
    F	GG	UTC	2	AD	$
    F	GG	UTC	3	AD	$
    F	GG	UTC	4	AD	$
    F	GG	UTC	5	AD	$
    F	GG	UTC	6	AD	$
    F	GG	UTC	7	AD	$
    F	GG	America/New_York	0	AD	$
    F	GG	America/New_York	1	AD	$
    F	GG	America/New_York	2	AD	$
    F	GG	America/New_York	3	AD	$
    F	GG	America/New_York	4	AD	$
    F	GG	America/New_York	5	AD	$
    F	GG	America/New_York	6	AD	$
    F	GG	America/New_York	7	AD	$
    F	GG	Asia/Kolkata	0	AD	$
    F	GG	Asia/Kolkata	1	AD	$
    F	GG	Asia/Kolkata	2	AD	$
    F	GG	Asia/Kolkata	3	AD	$
    F	GG	Asia/Kolkata	4	AD	$
    F	GG	Asia/Kolkata	5	AD	$
    F	GG	Asia/Kolkata	6	AD	$
    F	GG	Asia/Kolkata	7	AD	$
    F	GG	America/St_Johns	0	AD	$
    F	GG	America/St_Johns	1	AD	$
    F	GG	America/St_Johns	2	AD	$
    F	GG	America/St_Johns	3	AD	$
    F	GG	America/St_Johns	4	AD	$
    F	GG	America/St_Johns	5	AD	$
    F	GG	America/St_Johns	6	AD	$
    F	GG	America/St_Johns	7	AD	$
    F	GGGG	UTC	0	Anno Domini	$
    F	GGGG	UTC	1	Anno Domini	$
    F	GGGG	UTC	2	Anno Domini	$
    F	GGGG	UTC	3	Anno Domini	$
    F	GGGG	UTC	4	Anno Domini	$
    F	GGGG	UTC	5	Anno Domini	$
    F	GGGG	UTC	6	Anno Domini	$
    F	GGGG	UTC	7	Anno Domini	$
    F	GGGG	America/New_York	0	Anno Domini	$
    F	GGGG	America/New_York	1	Anno Domini	$
    F	GGGG	America/New_York	2	Anno Domini	$
    F	GGGG	America/New_York	3	Anno Domini	$
    F	GGGG	America/New_York	4	Anno Domini	$
    F	GGGG	America/New_York	5	Anno Domini	$
    F	GGGG	America/New_York	6	Anno Domini	$
    F	GGGG	America/New_York	7	Anno Domini	$
    F	GGGG	Asia/Kolkata	0	Anno Domini	$
    F	GGGG	Asia/Kolkata	1	Anno Domini	$
    F	GGGG	Asia/Kolkata	2	Anno Domini	$
    F	GGGG	Asia/Kolkata	3	Anno Domini	$
    F	GGGG	Asia/Kolkata	4	Anno Domini	$
    F	GGGG	Asia/Kolkata	5	Anno Domini	$
    F	GGGG	Asia/Kolkata	6	Anno Domini	$
    F	GGGG	Asia/Kolkata	7	Anno Domini	$
    F	GGGG	America/St_Johns	0	Anno Domini	$
    F	GGGG	America/St_Johns	1	Anno Domini	$
    F	GGGG	America/St_Johns	2	Anno Domini	$
    F	GGGG	America/St_Johns	3	Anno Domini	$
    F	GGGG	America/St_Johns	4	Anno Domini	$
    F	GGGG	America/St_Johns	5	Anno Domini	$
    F	GGGG	America/St_Johns	6	Anno Domini	$
    F	GGGG	America/St_Johns	7	Anno Domini	$
    F	GGGGG	UTC	0	A	$
    F	GGGGG	UTC	1	A	$
    F	GGGGG	UTC	2	A	$
    F	GGGGG	UTC	3	A	$
    F	GGGGG	UTC	4	A	$
    F	GGGGG	UTC	5	A	$
    F	GGGGG	UTC	6	A	$
    F	GGGGG	UTC	7	A	$
    F	GGGGG	America/New_York	0	A	$
    F	GGGGG	America/New_York	1	A	$
    F	GGGGG	America/New_York	2	A	$
    F	GGGGG	America/New_York	3	A	$
    F	GGGGG	America/New_York	4	A	$
    F	GGGGG	America/New_York	5	A	$
    F	GGGGG	America/New_York	6	A	$
    F	GGGGG	America/New_York	7	A	$
    F	GGGGG	Asia/Kolkata	0	A	$
    F	GGGGG	Asia/Kolkata	1	A	$
    F	GGGGG	Asia/Kolkata	2	A	$
    F	GGGGG	Asia/Kolkata	3	A	$
    F	GGGGG	Asia/Kolkata	4	A	$
    F	GGGGG	Asia/Kolkata	5	A	$
    F	GGGGG	Asia/Kolkata	6	A	$
    F	GGGGG	Asia/Kolkata	7	A	$
    F	GGGGG	America/St_Johns	0	A	$
    F	GGGGG	America/St_Johns	1	A	$
    F	GGGGG	America/St_Johns	2	A	$
    F	GGGGG	America/St_Johns	3	A	$
    F	GGGGG	America/St_Johns	4	A	$
    F	GGGGG	America/St_Johns	5	A	$
    F	GGGGG	America/St_Johns	6	A	$
    F	GGGGG	America/St_Johns	7	A	$
    F	Q	UTC	0	4	$
    F	Q	UTC	1	1	$
    F	Q	UTC	2	4	$
    F	Q	UTC	3	1	$
    F	Q	UTC	4	1	$
    F	Q	UTC	5	3	$
    F	Q	UTC	6	4	$
    F	Q	UTC	7	1	$
    F	Q	America/New_York	0	4	$
    F	Q	America/New_York	1	1	$
    F	Q	America/New_York	2	4	$
    F	Q	America/New_York	3	4	$
    F	Q	America/New_York	4	4	$
    F	Q	America/New_York	5	3	$
    F	Q	America/New_York	6	4	$
    F	Q	America/New_York	7	1	$
    F	Q	Asia/Kolkata	0	4	$
    F	Q	Asia/Kolkata	1	1	$
    F	Q	Asia/Kolkata	2	1	$
    F	Q	Asia/Kolkata	3	1	$
    F	Q	Asia/Kolkata	4	1	$
    F	Q	Asia/Kolkata	5	3	$
    F	Q	Asia/Kolkata	6	1	$
    F	Q	Asia/Kolkata	7	1	$
    F	Q	America/St_Johns	0	4	$
    F	Q	America/St_Johns	1	1	$
    F	Q	America/St_Johns	2	4	$
    F	Q	America/St_Johns	3	4	$
    F	Q	America/St_Johns	4	4	$
    F	Q	America/St_Johns	5	3	$
    F	Q	America/St_Johns	6	4	$
    F	Q	America/St_Johns	7	1	$
    F	QQ	UTC	0	04	$
    F	QQ	UTC	1	01	$
    F	QQ	UTC	2	04	$
    F	QQ	UTC	3	01	$
    F	QQ	UTC	4	01	$
    F	QQ	UTC	5	03	$
    F	QQ	UTC	6	04	$
    F	QQ	UTC	7	01	$
    F	QQ	America/New_York	0	04	$
    F	QQ	America/New_York	1	01	$
    F	QQ	America/New_York	2	04	$
    F	QQ	America/New_York	3	04	$
    F	QQ	America/New_York	4	04	$
    F	QQ	America/New_York	5	03	$
    F	QQ	America/New_York	6	04	$
    F	QQ	America/New_York	7	01	$
    F	QQ	Asia/Kolkata	0	04	$
    F	QQ	Asia/Kolkata	1	01	$
    F	QQ	Asia/Kolkata	2	01	$
    F	QQ	Asia/Kolkata	3	01	$
    F	QQ	Asia/Kolkata	4	01	$
    F	QQ	Asia/Kolkata	5	03	$
    F	QQ	Asia/Kolkata	6	01	$
    F	QQ	Asia/Kolkata	7	01	$
    F	QQ	America/St_Johns	0	04	$
    F	QQ	America/St_Johns	1	01	$
    F	QQ	America/St_Johns	2	04	$
    F	QQ	America/St_Johns	3	04	$
    F	QQ	America/St_Johns	4	04	$
    F	QQ	America/St_Johns	5	03	$
    F	QQ	America/St_Johns	6	04	$
    F	QQ	America/St_Johns	7	01	$
    F	QQQ	UTC	0	Q4	$
    F	QQQ	UTC	1	Q1	$
    F	QQQ	UTC	2	Q4	$
    F	QQQ	UTC	3	Q1	$
    F	QQQ	UTC	4	Q1	$
    F	QQQ	UTC	5	Q3	$
    F	QQQ	UTC	6	Q4	$
    F	QQQ	UTC	7	Q1	$
    F	QQQ	America/New_York	0	Q4	$
    F	QQQ	America/New_York	1	Q1	$
    F	QQQ	America/New_York	2	Q4	$
    F	QQQ	America/New_York	3	Q4	$
    F	QQQ	America/New_York	4	Q4	$
    F	QQQ	America/New_York	5	Q3	$
    F	QQQ	America/New_York	6	Q4	$
    F	QQQ	America/New_York	7	Q1	$
    F	QQQ	Asia/Kolkata	0	Q4	$
    F	QQQ	Asia/Kolkata	1	Q1	$
    F	QQQ	Asia/Kolkata	2	Q1	$
    F	QQQ	Asia/Kolkata	3	Q1	$
    F	QQQ	Asia/Kolkata	4	Q1	$
    F	QQQ	Asia/Kolkata	5	Q3	$
    F	QQQ	Asia/Kolkata	6	Q1	$
    F	QQQ	Asia/Kolkata	7	Q1	$
    F	QQQ	America/St_Johns	0	Q4	$
    F	QQQ	America/St_Johns	1	Q1	$
    F	QQQ	America/St_Johns	2	Q4	$
    F	QQQ	America/St_Johns	3	Q4	$
    F	QQQ	America/St_Johns	4	Q4	$
    F	QQQ	America/St_Johns	5	Q3	$
    F	QQQ	America/St_Johns	6	Q4	$
    F	QQQ	America/St_Johns	7	Q1	$
    F	QQQQ	UTC	0	4th quarter	$
    F	QQQQ	UTC	1	1st quarter	$
    F	QQQQ	UTC	2	4th quarter	$
    F	QQQQ	UTC	3	1st quarter	$
    F	QQQQ	UTC	4	1st quarter	$
    F	QQQQ	UTC	5	3rd quarter	$
    F	QQQQ	UTC	6	4th quarter	$
    F	QQQQ	UTC	7	1st quarter	$
    F	QQQQ	America/New_York	0	4th quarter	$
    F	QQQQ	America/New_York	1	1st quarter	$
    F	QQQQ	America/New_York	2	4th quarter	$
    F	QQQQ	America/New_York	3	4th quarter	$
    F	QQQQ	America/New_York	4	4th quarter	$
    F	QQQQ	America/New_York	5	3rd quarter	$
    F	QQQQ	America/New_York	6	4th quarter	$
    F	QQQQ	America/New_York	7	1st quarter	$
    F	QQQQ	Asia/Kolkata	0	4th quarter	$
    F	QQQQ	Asia/Kolkata	1	1st quarter	$
    F	QQQQ	Asia/Kolkata	2	1st quarter	$
    F	QQQQ	Asia/Kolkata	3	1st quarter	$
    F	QQQQ	Asia/Kolkata	4	1st quarter	$
    F	QQQQ	Asia/Kolkata	5	3rd quarter	$
    F	QQQQ	Asia/Kolkata	6	1st quarter	$
    F	QQQQ	Asia/Kolkata	7	1st quarter	$
    F	QQQQ	America/St_Johns	0	4th quarter	$
    F	QQQQ	America/St_Johns	1	1st quarter	$
    F	QQQQ	America/St_Johns	2	4th quarter	$
    F	QQQQ	America/St_Johns	3	4th quarter	$
    F	QQQQ	America/St_Johns	4	4th quarter	$
    F	QQQQ	America/St_Johns	5	3rd quarter	$
    F	QQQQ	America/St_Johns	6	4th quarter	$
    F	QQQQ	America/St_Johns	7	1st quarter	$
    F	QQQQQ	UTC	0	4	$
    F	QQQQQ	UTC	1	1	$
    F	QQQQQ	UTC	2	4	$
    F	QQQQQ	UTC	3	1	$
    F	QQQQQ	UTC	4	1	$
    F	QQQQQ	UTC	5	3	$
    F	QQQQQ	UTC	6	4	$
    F	QQQQQ	UTC	7	1	$
    F	QQQQQ	America/New_York	0	4	$
    F	QQQQQ	America/New_York	1	1	$
    F	QQQQQ	America/New_York	2	4	$
    F	QQQQQ	America/New_York	3	4	$
    F	QQQQQ	America/New_York	4	4	$
    F	QQQQQ	America/New_York	5	3	$
    F	QQQQQ	America/New_York	6	4	$
    F	QQQQQ	America/New_York	7	1	$
    F	QQQQQ	Asia/Kolkata	0	4	$
    F	QQQQQ	Asia/Kolkata	1	1	$
    F	QQQQQ	Asia/Kolkata	2	1	$
    F	QQQQQ	Asia/Kolkata	3	1	$
    F	QQQQQ	Asia/Kolkata	4	1	$
    F	QQQQQ	Asia/Kolkata	5	3	$
    F	QQQQQ	Asia/Kolkata	6	1	$
    F	QQQQQ	Asia/Kolkata	7	1	$
    F	QQQQQ	America/St_Johns	0	4	$
    F	QQQQQ	America/St_Johns	1	1	$
    F	QQQQQ	America/St_Johns	2	4	$
    F	QQQQQ	America/St_Johns	3	4	$
    F	QQQQQ	America/St_Johns	4	4	$
    F	QQQQQ	America/St_Johns	5	3	$
    F	QQQQQ	America/St_Johns	6	4	$
    F	QQQQQ	America/St_Johns	7	1	$
    F	q	UTC	0	4	$
    F	q	UTC	1	1	$
    F	q	UTC	2	4	$
    F	q	UTC	3	1	$
    F	q	UTC	4	1	$
    F	q	UTC	5	3	$
    F	q	UTC	6	4	$
    F	q	UTC	7	1	$
    F	q	America/New_York	0	4	$
    F	q	America/New_York	1	1	$
    F	q	America/New_York	2	4	$
    F	q	America/New_York	3	4	$
    F	q	America/New_York	4	4	$
    F	q	America/New_York	5	3	$
    F	q	America/New_York	6	4	$
    F	q	America/New_York	7	1	$
    F	q	Asia/Kolkata	0	4	$
    F	q	Asia/Kolkata	1	1	$
    F	q	Asia/Kolkata	2	1	$
    F	q	Asia/Kolkata	3	1	$
    F	q	Asia/Kolkata	4	1	$
    F	q	Asia/Kolkata	5	3	$
    F	q	Asia/Kolkata	6	1	$
    F	q	Asia/Kolkata	7	1	$
    F	q	America/St_Johns	0	4	$
    F	q	America/St_Johns	1	1	$
    F	q	America/St_Johns	2	4	$
    F	q	America/St_Johns	3	4	$
    F	q	America/St_Johns	4	4	$
    F	q	America/St_Johns	5	3	$
    F	q	America/St_Johns	6	4	$
    F	q	America/St_Johns	7	1	$
    F	qq	UTC	0	04	$
    F	qq	UTC	1	01	$
    F	qq	UTC	2	04	$
    F	qq	UTC	3	01	$
    F	qq	UTC	4	01	$
    F	qq	UTC	5	03	$
    F	qq	UTC	6	04	$
    F	qq	UTC	7	01	$
    F	qq	America/New_York	0	04	$
    F	qq	America/New_York	1	01	$
    F	qq	America/New_York	2	04	$
    F	qq	America/New_York	3	04	$
    F	qq	America/New_York	4	04	$
    F	qq	America/New_York	5	03	$
    F	qq	America/New_York	6	04	$
    F	qq	America/New_York	7	01	$
    F	qq	Asia/Kolkata	0	04	$
    F	qq	Asia/Kolkata	1	01	$
    F	qq	Asia/Kolkata	2	01	$
    F	qq	Asia/Kolkata	3	01	$
    F	qq	Asia/Kolkata	4	01	$
    F	qq	Asia/Kolkata	5	03	$
    F	qq	Asia/Kolkata	6	01	$
    F	qq	Asia/Kolkata	7	01	$
    F	qq	America/St_Johns	0	04	$
    F	qq	America/St_Johns	1	01	$
    F	qq	America/St_Johns	2	04	$
    F	qq	America/St_Johns	3	04	$
    F	qq	America/St_Johns	4	04	$
    F	qq	America/St_Johns	5	03	$
    F	qq	America/St_Johns	6	04	$
    F	qq	America/St_Johns	7	01	$
    F	qqq	UTC	0	Q4	$
    F	qqq	UTC	1	Q1	$
    F	qqq	UTC	2	Q4	$
    F	qqq	UTC	3	Q1	$
    F	qqq	UTC	4	Q1	$
    F	qqq	UTC	5	Q3	$
    F	qqq	UTC	6	Q4	$
    F	qqq	UTC	7	Q1	$
    F	qqq	America/New_York	0	Q4	$
    F	qqq	America/New_York	1	Q1	$
    F	qqq	America/New_York	2	Q4	$
    F	qqq	America/New_York	3	Q4	$
    F	qqq	America/New_York	4	Q4	$
    F	qqq	America/New_York	5	Q3	$
    F	qqq	America/New_York	6	Q4	$
    F	qqq	America/New_York	7	Q1	$
    F	qqq	Asia/Kolkata	0	Q4	$
    F	qqq	Asia/Kolkata	1	Q1	$
    F	qqq	Asia/Kolkata	2	Q1	$
    F	qqq	Asia/Kolkata	3	Q1	$
    F	qqq	Asia/Kolkata	4	Q1	$
    F	qqq	Asia/Kolkata	5	Q3	$
    F	qqq	Asia/Kolkata	6	Q1	$
    F	qqq	Asia/Kolkata	7	Q1	$
    F	qqq	America/St_Johns	0	Q4	$
    F	qqq	America/St_Johns	1	Q1	$
    F	qqq	America/St_Johns	2	Q4	$
    F	qqq	America/St_Johns	3	Q4	$
    F	qqq	America/St_Johns	4	Q4	$
    F	qqq	America/St_Johns	5	Q3	$
    F	qqq	America/St_Johns	6	Q4	$
    F	qqq	America/St_Johns	7	Q1	$
    F	qqqq	UTC	0	4th quarter	$
    F	qqqq	UTC	1	1st quarter	$
    F	qqqq	UTC	2	4th quarter	$
    F	qqqq	UTC	3	1st quarter	$
    F	qqqq	UTC	4	1st quarter	$
    F	qqqq	UTC	5	3rd quarter	$
    F	qqqq	UTC	6	4th quarter	$
    F	qqqq	UTC	7	1st quarter	$
    F	qqqq	America/New_York	0	4th quarter	$
    F	qqqq	America/New_York	1	1st quarter	$
    F	qqqq	America/New_York	2	4th quarter	$
    F	qqqq	America/New_York	3	4th quarter	$
    F	qqqq	America/New_York	4	4th quarter	$
    F	qqqq	America/New_York	5	3rd quarter	$
    F	qqqq	America/New_York	6	4th quarter	$
    F	qqqq	America/New_York	7	1st quarter	$
    F	qqqq	Asia/Kolkata	0	4th quarter	$
    F	qqqq	Asia/Kolkata	1	1st quarter	$
    F	qqqq	Asia/Kolkata	2	1st quarter	$
    F	qqqq	Asia/Kolkata	3	1st quarter	$
    F	qqqq	Asia/Kolkata	4	1st quarter	$
    F	qqqq	Asia/Kolkata	5	3rd quarter	$
    F	qqqq	Asia/Kolkata	6	1st quarter	$
    F	qqqq	Asia/Kolkata	7	1st quarter	$
    F	qqqq	America/St_Johns	0	4th quarter	$
    F	qqqq	America/St_Johns	1	1st quarter	$
    F	qqqq	America/St_Johns	2	4th quarter	$
    F	qqqq	America/St_Johns	3	4th quarter	$
    F	qqqq	America/St_Johns	4	4th quarter	$
    F	qqqq	America/St_Johns	5	3rd quarter	$
    F	qqqq	America/St_Johns	6	4th quarter	$
    F	qqqq	America/St_Johns	7	1st quarter	$
    F	n	UTC	0	123456000	$
    F	n	UTC	1	0	$
    F	n	UTC	2	999999000	$
    F	n	UTC	3	0	$
    F	n	UTC	4	0	$
    F	n	UTC	5	500000000	$
    F	n	UTC	6	250000000	$
    F	n	UTC	7	0	$
    F	n	America/New_York	0	123456000	$
    F	n	America/New_York	1	0	$
    F	n	America/New_York	2	999999000	$
    F	n	America/New_York	3	0	$
    F	n	America/New_York	4	0	$
    F	n	America/New_York	5	500000000	$
    F	n	America/New_York	6	250000000	$
    F	n	America/New_York	7	0	$
    F	n	Asia/Kolkata	0	123456000	$
    F	n	Asia/Kolkata	1	0	$
    F	n	Asia/Kolkata	2	999999000	$
    F	n	Asia/Kolkata	3	0	$
    F	n	Asia/Kolkata	4	0	$
    F	n	Asia/Kolkata	5	500000000	$
    F	n	Asia/Kolkata	6	250000000	$
    F	n	Asia/Kolkata	7	0	$
    F	n	America/St_Johns	0	123456000	$
    F	n	America/St_Johns	1	0	$
    F	n	America/St_Johns	2	999999000	$
    F	n	America/St_Johns	3	0	$
    F	n	America/St_Johns	4	0	$
    F	n	America/St_Johns	5	500000000	$
    F	n	America/St_Johns	6	250000000	$
    F	n	America/St_Johns	7	0	$
    F	nnnnnnnnn	UTC	0	123456000	$
    F	nnnnnnnnn	UTC	1	000000000	$
    F	nnnnnnnnn	UTC	2	999999000	$
    F	nnnnnnnnn	UTC	3	000000000	$
    F	nnnnnnnnn	UTC	4	000000000	$
    F	nnnnnnnnn	UTC	5	500000000	$
    F	nnnnnnnnn	UTC	6	250000000	$
    F	nnnnnnnnn	UTC	7	000000000	$
    F	nnnnnnnnn	America/New_York	0	123456000	$
    F	nnnnnnnnn	America/New_York	1	000000000	$
    F	nnnnnnnnn	America/New_York	2	999999000	$
    F	nnnnnnnnn	America/New_York	3	000000000	$
    F	nnnnnnnnn	America/New_York	4	000000000	$
    F	nnnnnnnnn	America/New_York	5	500000000	$
    F	nnnnnnnnn	America/New_York	6	250000000	$
    F	nnnnnnnnn	America/New_York	7	000000000	$
    F	nnnnnnnnn	Asia/Kolkata	0	123456000	$
    F	nnnnnnnnn	Asia/Kolkata	1	000000000	$
    F	nnnnnnnnn	Asia/Kolkata	2	999999000	$
    F	nnnnnnnnn	Asia/Kolkata	3	000000000	$
    F	nnnnnnnnn	Asia/Kolkata	4	000000000	$
    F	nnnnnnnnn	Asia/Kolkata	5	500000000	$
    F	nnnnnnnnn	Asia/Kolkata	6	250000000	$
    F	nnnnnnnnn	Asia/Kolkata	7	000000000	$
    F	nnnnnnnnn	America/St_Johns	0	123456000	$
    F	nnnnnnnnn	America/St_Johns	1	000000000	$
    F	nnnnnnnnn	America/St_Johns	2	999999000	$
    F	nnnnnnnnn	America/St_Johns	3	000000000	$
    F	nnnnnnnnn	America/St_Johns	4	000000000	$
    F	nnnnnnnnn	America/St_Johns	5	500000000	$
    F	nnnnnnnnn	America/St_Johns	6	250000000	$
    F	nnnnnnnnn	America/St_Johns	7	000000000	$
    F	N	UTC	0	47109123456000	$
    F	N	UTC	1	0	$
    F	N	UTC	2	86399999999000	$
    F	N	UTC	3	0	$
    F	N	UTC	4	0	$
    F	N	UTC	5	45000500000000	$
    F	N	UTC	6	86399250000000	$
    F	N	UTC	7	420000000000	$
    F	N	America/New_York	0	29109123456000	$
    F	N	America/New_York	1	68400000000000	$
    F	N	America/New_York	2	68399999999000	$
    F	N	America/New_York	3	68400000000000	$
    F	N	America/New_York	4	68400000000000	$
    F	N	America/New_York	5	30600500000000	$
    F	N	America/New_York	6	68399250000000	$
    F	N	America/New_York	7	68820000000000	$
    F	N	Asia/Kolkata	0	66909123456000	$
    F	N	Asia/Kolkata	1	19800000000000	$
    F	N	Asia/Kolkata	2	19799999999000	$
    F	N	Asia/Kolkata	3	19800000000000	$
    F	N	Asia/Kolkata	4	19800000000000	$
    F	N	Asia/Kolkata	5	64800500000000	$
    F	N	Asia/Kolkata	6	19799250000000	$
    F	N	Asia/Kolkata	7	20220000000000	$
    F	N	America/St_Johns	0	34509123456000	$
    F	N	America/St_Johns	1	73800000000000	$
    F	N	America/St_Johns	2	73799999999000	$
    F	N	America/St_Johns	3	73800000000000	$
    F	N	America/St_Johns	4	73800000000000	$
    F	N	America/St_Johns	5	36000500000000	$
    F	N	America/St_Johns	6	73799250000000	$
    F	N	America/St_Johns	7	74220000000000	$
    F	A	UTC	0	47109123	$
    F	A	UTC	1	0	$
    F	A	UTC	2	86399999	$
    F	A	UTC	3	0	$
    F	A	UTC	4	0	$
    F	A	UTC	5	45000500	$
    F	A	UTC	6	86399250	$
    F	A	UTC	7	420000	$
    F	A	America/New_York	0	29109123	$
    F	A	America/New_York	1	68400000	$
    F	A	America/New_York	2	68399999	$
    F	A	America/New_York	3	68400000	$
    F	A	America/New_York	4	68400000	$
    F	A	America/New_York	5	30600500	$
    F	A	America/New_York	6	68399250	$
    F	A	America/New_York	7	68820000	$
    F	A	Asia/Kolkata	0	66909123	$
    F	A	Asia/Kolkata	1	19800000	$
    F	A	Asia/Kolkata	2	19799999	$
    F	A	Asia/Kolkata	3	19800000	$
    F	A	Asia/Kolkata	4	19800000	$
    F	A	Asia/Kolkata	5	64800500	$
    F	A	Asia/Kolkata	6	19799250	$
    F	A	Asia/Kolkata	7	20220000	$
    F	A	America/St_Johns	0	34509123	$
    F	A	America/St_Johns	1	73800000	$
    F	A	America/St_Johns	2	73799999	$
    F	A	America/St_Johns	3	73800000	$
    F	A	America/St_Johns	4	73800000	$
    F	A	America/St_Johns	5	36000500	$
    F	A	America/St_Johns	6	73799250	$
    F	A	America/St_Johns	7	74220000	$
    F	AAAAAAAA	UTC	0	47109123	$
    F	AAAAAAAA	UTC	1	00000000	$
    F	AAAAAAAA	UTC	2	86399999	$
    F	AAAAAAAA	UTC	3	00000000	$
    F	AAAAAAAA	UTC	4	00000000	$
    F	AAAAAAAA	UTC	5	45000500	$
    F	AAAAAAAA	UTC	6	86399250	$
    F	AAAAAAAA	UTC	7	00420000	$
    F	AAAAAAAA	America/New_York	0	29109123	$
    F	AAAAAAAA	America/New_York	1	68400000	$
    F	AAAAAAAA	America/New_York	2	68399999	$
    F	AAAAAAAA	America/New_York	3	68400000	$
    F	AAAAAAAA	America/New_York	4	68400000	$
    F	AAAAAAAA	America/New_York	5	30600500	$
    F	AAAAAAAA	America/New_York	6	68399250	$
    F	AAAAAAAA	America/New_York	7	68820000	$
    F	AAAAAAAA	Asia/Kolkata	0	66909123	$
    F	AAAAAAAA	Asia/Kolkata	1	19800000	$
    F	AAAAAAAA	Asia/Kolkata	2	19799999	$
    F	AAAAAAAA	Asia/Kolkata	3	19800000	$
    F	AAAAAAAA	Asia/Kolkata	4	19800000	$
    F	AAAAAAAA	Asia/Kolkata	5	64800500	$
    F	AAAAAAAA	Asia/Kolkata	6	19799250	$
    F	AAAAAAAA	Asia/Kolkata	7	20220000	$
    F	AAAAAAAA	America/St_Johns	0	34509123	$
    F	AAAAAAAA	America/St_Johns	1	73800000	$
    F	AAAAAAAA	America/St_Johns	2	73799999	$
    F	AAAAAAAA	America/St_Johns	3	73800000	$
    F	AAAAAAAA	America/St_Johns	4	73800000	$
    F	AAAAAAAA	America/St_Johns	5	36000500	$
    F	AAAAAAAA	America/St_Johns	6	73799250	$
    F	AAAAAAAA	America/St_Johns	7	74220000	$
    F	g	UTC	0	61365	$
    F	g	UTC	1	60369	$
    F	g	UTC	2	60309	$
    F	g	UTC	3	51544	$
    F	g	UTC	4	40587	$
    F	g	UTC	5	61225	$
    F	g	UTC	6	40586	$
    F	g	UTC	7	88128	$
    F	g	America/New_York	0	61365	$
    F	g	America/New_York	1	60368	$
    F	g	America/New_York	2	60309	$
    F	g	America/New_York	3	51543	$
    F	g	America/New_York	4	40586	$
    F	g	America/New_York	5	61225	$
    F	g	America/New_York	6	40586	$
    F	g	America/New_York	7	88127	$
    F	g	Asia/Kolkata	0	61365	$
    F	g	Asia/Kolkata	1	60369	$
    F	g	Asia/Kolkata	2	60310	$
    F	g	Asia/Kolkata	3	51544	$
    F	g	Asia/Kolkata	4	40587	$
    F	g	Asia/Kolkata	5	61225	$
    F	g	Asia/Kolkata	6	40587	$
    F	g	Asia/Kolkata	7	88128	$
    F	g	America/St_Johns	0	61365	$
    F	g	America/St_Johns	1	60368	$
    F	g	America/St_Johns	2	60309	$
    F	g	America/St_Johns	3	51543	$
    F	g	America/St_Johns	4	40586	$
    F	g	America/St_Johns	5	61225	$
    F	g	America/St_Johns	6	40586	$
    F	g	America/St_Johns	7	88127	$
    F	ggggggg	UTC	0	0061365	$
    F	ggggggg	UTC	1	0060369	$
    F	ggggggg	UTC	2	0060309	$
    F	ggggggg	UTC	3	0051544	$
    F	ggggggg	UTC	4	0040587	$
    F	ggggggg	UTC	5	0061225	$
    F	ggggggg	UTC	6	0040586	$
    F	ggggggg	UTC	7	0088128	$
    F	ggggggg	America/New_York	0	0061365	$
    F	ggggggg	America/New_York	1	0060368	$
    F	ggggggg	America/New_York	2	0060309	$
    F	ggggggg	America/New_York	3	0051543	$
    F	ggggggg	America/New_York	4	0040586	$
    F	ggggggg	America/New_York	5	0061225	$
    F	ggggggg	America/New_York	6	0040586	$
    F	ggggggg	America/New_York	7	0088127	$
    F	ggggggg	Asia/Kolkata	0	0061365	$
    F	ggggggg	Asia/Kolkata	1	0060369	$
    F	ggggggg	Asia/Kolkata	2	0060310	$
    F	ggggggg	Asia/Kolkata	3	0051544	$
    F	ggggggg	Asia/Kolkata	4	0040587	$
    F	ggggggg	Asia/Kolkata	5	0061225	$
    F	ggggggg	Asia/Kolkata	6	0040587	$
    F	ggggggg	Asia/Kolkata	7	0088128	$
    F	ggggggg	America/St_Johns	0	0061365	$
    F	ggggggg	America/St_Johns	1	0060368	$
    F	ggggggg	America/St_Johns	2	0060309	$
    F	ggggggg	America/St_Johns	3	0051543	$
    F	ggggggg	America/St_Johns	4	0040586	$
    F	ggggggg	America/St_Johns	5	0061225	$
    F	ggggggg	America/St_Johns	6	0040586	$
    F	ggggggg	America/St_Johns	7	0088127	$
    F	Z	UTC	0	+0000	$
    F	Z	UTC	1	+0000	$
    F	Z	UTC	2	+0000	$
    F	Z	UTC	3	+0000	$
    F	Z	UTC	4	+0000	$
    F	Z	UTC	5	+0000	$
    F	Z	UTC	6	+0000	$
    F	Z	UTC	7	+0000	$
    F	Z	America/New_York	0	-0500	$
    F	Z	America/New_York	1	-0500	$
    F	Z	America/New_York	2	-0500	$
    F	Z	America/New_York	3	-0500	$
    F	Z	America/New_York	4	-0500	$
    F	Z	America/New_York	5	-0400	$
    F	Z	America/New_York	6	-0500	$
    F	Z	America/New_York	7	-0500	$
    F	Z	Asia/Kolkata	0	+0530	$
    F	Z	Asia/Kolkata	1	+0530	$
    F	Z	Asia/Kolkata	2	+0530	$
    F	Z	Asia/Kolkata	3	+0530	$
    F	Z	Asia/Kolkata	4	+0530	$
    F	Z	Asia/Kolkata	5	+0530	$
    F	Z	Asia/Kolkata	6	+0530	$
    F	Z	Asia/Kolkata	7	+0530	$
    F	Z	America/St_Johns	0	-0330	$
    F	Z	America/St_Johns	1	-0330	$
    F	Z	America/St_Johns	2	-0330	$
    F	Z	America/St_Johns	3	-0330	$
    F	Z	America/St_Johns	4	-0330	$
    F	Z	America/St_Johns	5	-0230	$
    F	Z	America/St_Johns	6	-0330	$
    F	Z	America/St_Johns	7	-0330	$
    F	ZZ	UTC	0	+0000	$
    F	ZZ	UTC	1	+0000	$
    F	ZZ	UTC	2	+0000	$
    F	ZZ	UTC	3	+0000	$
    F	ZZ	UTC	4	+0000	$
    F	ZZ	UTC	5	+0000	$
    F	ZZ	UTC	6	+0000	$
    F	ZZ	UTC	7	+0000	$
    F	ZZ	America/New_York	0	-0500	$
    F	ZZ	America/New_York	1	-0500	$
    F	ZZ	America/New_York	2	-0500	$
    F	ZZ	America/New_York	3	-0500	$
    F	ZZ	America/New_York	4	-0500	$
    F	ZZ	America/New_York	5	-0400	$
    F	ZZ	America/New_York	6	-0500	$
    F	ZZ	America/New_York	7	-0500	$
    F	ZZ	Asia/Kolkata	0	+0530	$
    F	ZZ	Asia/Kolkata	1	+0530	$
    F	ZZ	Asia/Kolkata	2	+0530	$
    F	ZZ	Asia/Kolkata	3	+0530	$
    F	ZZ	Asia/Kolkata	4	+0530	$
    F	ZZ	Asia/Kolkata	5	+0530	$
    F	ZZ	Asia/Kolkata	6	+0530	$
    F	ZZ	Asia/Kolkata	7	+0530	$
    F	ZZ	America/St_Johns	0	-0330	$
    F	ZZ	America/St_Johns	1	-0330	$
    F	ZZ	America/St_Johns	2	-0330	$
    F	ZZ	America/St_Johns	3	-0330	$
    F	ZZ	America/St_Johns	4	-0330	$
    F	ZZ	America/St_Johns	5	-0230	$
    F	ZZ	America/St_Johns	6	-0330	$
    F	ZZ	America/St_Johns	7	-0330	$
    F	ZZZ	UTC	0	+0000	$
    F	ZZZ	UTC	1	+0000	$
    F	ZZZ	UTC	2	+0000	$
    F	ZZZ	UTC	3	+0000	$
    F	ZZZ	UTC	4	+0000	$
    F	ZZZ	UTC	5	+0000	$
    F	ZZZ	UTC	6	+0000	$
    F	ZZZ	UTC	7	+0000	$
    F	ZZZ	America/New_York	0	-0500	$
    F	ZZZ	America/New_York	1	-0500	$
    F	ZZZ	America/New_York	2	-0500	$
    F	ZZZ	America/New_York	3	-0500	$
    F	ZZZ	America/New_York	4	-0500	$
    F	ZZZ	America/New_York	5	-0400	$
    F	ZZZ	America/New_York	6	-0500	$
    F	ZZZ	America/New_York	7	-0500	$
    F	ZZZ	Asia/Kolkata	0	+0530	$
    F	ZZZ	Asia/Kolkata	1	+0530	$
    F	ZZZ	Asia/Kolkata	2	+0530	$
    F	ZZZ	Asia/Kolkata	3	+0530	$
    F	ZZZ	Asia/Kolkata	4	+0530	$
    F	ZZZ	Asia/Kolkata	5	+0530	$
    F	ZZZ	Asia/Kolkata	6	+0530	$
    F	ZZZ	Asia/Kolkata	7	+0530	$
    F	ZZZ	America/St_Johns	0	-0330	$
    F	ZZZ	America/St_Johns	1	-0330	$
    F	ZZZ	America/St_Johns	2	-0330	$
    F	ZZZ	America/St_Johns	3	-0330	$
    F	ZZZ	America/St_Johns	4	-0330	$
    F	ZZZ	America/St_Johns	5	-0230	$
    F	ZZZ	America/St_Johns	6	-0330	$
    F	ZZZ	America/St_Johns	7	-0330	$
    F	ZZZZ	UTC	0	GMT	$
    F	ZZZZ	UTC	1	GMT	$
    F	ZZZZ	UTC	2	GMT	$
    F	ZZZZ	UTC	3	GMT	$
    F	ZZZZ	UTC	4	GMT	$
    F	ZZZZ	UTC	5	GMT	$
    F	ZZZZ	UTC	6	GMT	$
    F	ZZZZ	UTC	7	GMT	$
    F	ZZZZ	America/New_York	0	GMT-05:00	$
    F	ZZZZ	America/New_York	1	GMT-05:00	$
    F	ZZZZ	America/New_York	2	GMT-05:00	$
    F	ZZZZ	America/New_York	3	GMT-05:00	$
    F	ZZZZ	America/New_York	4	GMT-05:00	$
    F	ZZZZ	America/New_York	5	GMT-04:00	$
    F	ZZZZ	America/New_York	6	GMT-05:00	$
    F	ZZZZ	America/New_York	7	GMT-05:00	$
    F	ZZZZ	Asia/Kolkata	0	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	1	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	2	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	3	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	4	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	5	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	6	GMT+05:30	$
    F	ZZZZ	Asia/Kolkata	7	GMT+05:30	$
    F	ZZZZ	America/St_Johns	0	GMT-03:30	$
    F	ZZZZ	America/St_Johns	1	GMT-03:30	$
    F	ZZZZ	America/St_Johns	2	GMT-03:30	$
    F	ZZZZ	America/St_Johns	3	GMT-03:30	$
    F	ZZZZ	America/St_Johns	4	GMT-03:30	$
    F	ZZZZ	America/St_Johns	5	GMT-02:30	$
    F	ZZZZ	America/St_Johns	6	GMT-03:30	$
    F	ZZZZ	America/St_Johns	7	GMT-03:30	$
    F	ZZZZZ	UTC	0	Z	$
    F	ZZZZZ	UTC	1	Z	$
    F	ZZZZZ	UTC	2	Z	$
    F	ZZZZZ	UTC	3	Z	$
    F	ZZZZZ	UTC	4	Z	$
    F	ZZZZZ	UTC	5	Z	$
    F	ZZZZZ	UTC	6	Z	$
    F	ZZZZZ	UTC	7	Z	$
    F	ZZZZZ	America/New_York	0	-05:00	$
    F	ZZZZZ	America/New_York	1	-05:00	$
    F	ZZZZZ	America/New_York	2	-05:00	$
    F	ZZZZZ	America/New_York	3	-05:00	$
    F	ZZZZZ	America/New_York	4	-05:00	$
    F	ZZZZZ	America/New_York	5	-04:00	$
    F	ZZZZZ	America/New_York	6	-05:00	$
    F	ZZZZZ	America/New_York	7	-05:00	$
    F	ZZZZZ	Asia/Kolkata	0	+05:30	$
    F	ZZZZZ	Asia/Kolkata	1	+05:30	$
    F	ZZZZZ	Asia/Kolkata	2	+05:30	$
    F	ZZZZZ	Asia/Kolkata	3	+05:30	$
    F	ZZZZZ	Asia/Kolkata	4	+05:30	$
    F	ZZZZZ	Asia/Kolkata	5	+05:30	$
    F	ZZZZZ	Asia/Kolkata	6	+05:30	$
    F	ZZZZZ	Asia/Kolkata	7	+05:30	$
    F	ZZZZZ	America/St_Johns	0	-03:30	$
    F	ZZZZZ	America/St_Johns	1	-03:30	$
    F	ZZZZZ	America/St_Johns	2	-03:30	$
    F	ZZZZZ	America/St_Johns	3	-03:30	$
    F	ZZZZZ	America/St_Johns	4	-03:30	$
    F	ZZZZZ	America/St_Johns	5	-02:30	$
    F	ZZZZZ	America/St_Johns	6	-03:30	$
    F	ZZZZZ	America/St_Johns	7	-03:30	$
    F	X	UTC	0	Z	$
    F	X	UTC	1	Z	$
    F	X	UTC	2	Z	$
    F	X	UTC	3	Z	$
    F	X	UTC	4	Z	$
    F	X	UTC	5	Z	$
    F	X	UTC	6	Z	$
    F	X	UTC	7	Z	$
    F	X	America/New_York	0	-05	$
    F	X	America/New_York	1	-05	$
    F	X	America/New_York	2	-05	$
    F	X	America/New_York	3	-05	$
    F	X	America/New_York	4	-05	$
    F	X	America/New_York	5	-04	$
    F	X	America/New_York	6	-05	$
    F	X	America/New_York	7	-05	$
    F	X	Asia/Kolkata	0	+0530	$
    F	X	Asia/Kolkata	1	+0530	$
    F	X	Asia/Kolkata	2	+0530	$
    F	X	Asia/Kolkata	3	+0530	$
    F	X	Asia/Kolkata	4	+0530	$
    F	X	Asia/Kolkata	5	+0530	$
    F	X	Asia/Kolkata	6	+0530	$
    F	X	Asia/Kolkata	7	+0530	$
    F	X	America/St_Johns	0	-0330	$
    F	X	America/St_Johns	1	-0330	$
    F	X	America/St_Johns	2	-0330	$
    F	X	America/St_Johns	3	-0330	$
    F	X	America/St_Johns	4	-0330	$
    F	X	America/St_Johns	5	-0230	$
    F	X	America/St_Johns	6	-0330	$
    F	X	America/St_Johns	7	-0330	$
    F	XX	UTC	0	Z	$
    F	XX	UTC	1	Z	$
    F	XX	UTC	2	Z	$
    F	XX	UTC	3	Z	$
    F	XX	UTC	4	Z	$
    F	XX	UTC	5	Z	$
    F	XX	UTC	6	Z	$
    F	XX	UTC	7	Z	$
    F	XX	America/New_York	0	-0500	$
    F	XX	America/New_York	1	-0500	$
    F	XX	America/New_York	2	-0500	$
    F	XX	America/New_York	3	-0500	$
    F	XX	America/New_York	4	-0500	$
    F	XX	America/New_York	5	-0400	$
    F	XX	America/New_York	6	-0500	$
    F	XX	America/New_York	7	-0500	$
    F	XX	Asia/Kolkata	0	+0530	$
    F	XX	Asia/Kolkata	1	+0530	$
    F	XX	Asia/Kolkata	2	+0530	$
    F	XX	Asia/Kolkata	3	+0530	$
    F	XX	Asia/Kolkata	4	+0530	$
    F	XX	Asia/Kolkata	5	+0530	$
    F	XX	Asia/Kolkata	6	+0530	$
    F	XX	Asia/Kolkata	7	+0530	$
    F	XX	America/St_Johns	0	-0330	$
    F	XX	America/St_Johns	1	-0330	$
    F	XX	America/St_Johns	2	-0330	$
    F	XX	America/St_Johns	3	-0330	$
    F	XX	America/St_Johns	4	-0330	$
    F	XX	America/St_Johns	5	-0230	$
    F	XX	America/St_Johns	6	-0330	$
    F	XX	America/St_Johns	7	-0330	$
    F	XXX	UTC	0	Z	$
    F	XXX	UTC	1	Z	$
    F	XXX	UTC	2	Z	$
    F	XXX	UTC	3	Z	$
    F	XXX	UTC	4	Z	$
    F	XXX	UTC	5	Z	$
    F	XXX	UTC	6	Z	$
    F	XXX	UTC	7	Z	$
    F	XXX	America/New_York	0	-05:00	$
    F	XXX	America/New_York	1	-05:00	$
    F	XXX	America/New_York	2	-05:00	$
    F	XXX	America/New_York	3	-05:00	$
    F	XXX	America/New_York	4	-05:00	$
    F	XXX	America/New_York	5	-04:00	$
    F	XXX	America/New_York	6	-05:00	$
    F	XXX	America/New_York	7	-05:00	$
    F	XXX	Asia/Kolkata	0	+05:30	$
    F	XXX	Asia/Kolkata	1	+05:30	$
    F	XXX	Asia/Kolkata	2	+05:30	$
    F	XXX	Asia/Kolkata	3	+05:30	$
    F	XXX	Asia/Kolkata	4	+05:30	$
    F	XXX	Asia/Kolkata	5	+05:30	$
    F	XXX	Asia/Kolkata	6	+05:30	$
    F	XXX	Asia/Kolkata	7	+05:30	$
    F	XXX	America/St_Johns	0	-03:30	$
    F	XXX	America/St_Johns	1	-03:30	$
    F	XXX	America/St_Johns	2	-03:30	$
    F	XXX	America/St_Johns	3	-03:30	$
    F	XXX	America/St_Johns	4	-03:30	$
    F	XXX	America/St_Johns	5	-02:30	$
    F	XXX	America/St_Johns	6	-03:30	$
    F	XXX	America/St_Johns	7	-03:30	$
    F	XXXX	UTC	0	Z	$
    F	XXXX	UTC	1	Z	$
    F	XXXX	UTC	2	Z	$
    F	XXXX	UTC	3	Z	$
    F	XXXX	UTC	4	Z	$
    F	XXXX	UTC	5	Z	$
    F	XXXX	UTC	6	Z	$
    F	XXXX	UTC	7	Z	$
    F	XXXX	America/New_York	0	-0500	$
    F	XXXX	America/New_York	1	-0500	$
    F	XXXX	America/New_York	2	-0500	$
    F	XXXX	America/New_York	3	-0500	$
    F	XXXX	America/New_York	4	-0500	$
    F	XXXX	America/New_York	5	-0400	$
    F	XXXX	America/New_York	6	-0500	$
    F	XXXX	America/New_York	7	-0500	$
    F	XXXX	Asia/Kolkata	0	+0530	$
    F	XXXX	Asia/Kolkata	1	+0530	$
    F	XXXX	Asia/Kolkata	2	+0530	$
    F	XXXX	Asia/Kolkata	3	+0530	$
    F	XXXX	Asia/Kolkata	4	+0530	$
    F	XXXX	Asia/Kolkata	5	+0530	$
    F	XXXX	Asia/Kolkata	6	+0530	$
    F	XXXX	Asia/Kolkata	7	+0530	$
    F	XXXX	America/St_Johns	0	-0330	$
    F	XXXX	America/St_Johns	1	-0330	$
    F	XXXX	America/St_Johns	2	-0330	$
    F	XXXX	America/St_Johns	3	-0330	$
    F	XXXX	America/St_Johns	4	-0330	$
    F	XXXX	America/St_Johns	5	-0230	$
    F	XXXX	America/St_Johns	6	-0330	$
    F	XXXX	America/St_Johns	7	-0330	$
    F	XXXXX	UTC	0	Z	$
    F	XXXXX	UTC	1	Z	$
    F	XXXXX	UTC	2	Z	$
    F	XXXXX	UTC	3	Z	$
    F	XXXXX	UTC	4	Z	$
    F	XXXXX	UTC	5	Z	$
    F	XXXXX	UTC	6	Z	$
    F	XXXXX	UTC	7	Z	$
    F	XXXXX	America/New_York	0	-05:00	$
    F	XXXXX	America/New_York	1	-05:00	$
    F	XXXXX	America/New_York	2	-05:00	$
    F	XXXXX	America/New_York	3	-05:00	$
    F	XXXXX	America/New_York	4	-05:00	$
    F	XXXXX	America/New_York	5	-04:00	$
    F	XXXXX	America/New_York	6	-05:00	$
    F	XXXXX	America/New_York	7	-05:00	$
    F	XXXXX	Asia/Kolkata	0	+05:30	$
    F	XXXXX	Asia/Kolkata	1	+05:30	$
    F	XXXXX	Asia/Kolkata	2	+05:30	$
    F	XXXXX	Asia/Kolkata	3	+05:30	$
    F	XXXXX	Asia/Kolkata	4	+05:30	$
    F	XXXXX	Asia/Kolkata	5	+05:30	$
    F	XXXXX	Asia/Kolkata	6	+05:30	$
    F	XXXXX	Asia/Kolkata	7	+05:30	$
    F	XXXXX	America/St_Johns	0	-03:30	$
    F	XXXXX	America/St_Johns	1	-03:30	$
    F	XXXXX	America/St_Johns	2	-03:30	$
    F	XXXXX	America/St_Johns	3	-03:30	$
    F	XXXXX	America/St_Johns	4	-03:30	$
    F	XXXXX	America/St_Johns	5	-02:30	$
    F	XXXXX	America/St_Johns	6	-03:30	$
    F	XXXXX	America/St_Johns	7	-03:30	$
    F	x	UTC	0	+00	$
    F	x	UTC	1	+00	$
    F	x	UTC	2	+00	$
    F	x	UTC	3	+00	$
    F	x	UTC	4	+00	$
    F	x	UTC	5	+00	$
    F	x	UTC	6	+00	$
    F	x	UTC	7	+00	$
    F	x	America/New_York	0	-05	$
    F	x	America/New_York	1	-05	$
    F	x	America/New_York	2	-05	$
    F	x	America/New_York	3	-05	$
    F	x	America/New_York	4	-05	$
    F	x	America/New_York	5	-04	$
    F	x	America/New_York	6	-05	$
    F	x	America/New_York	7	-05	$
    F	x	Asia/Kolkata	0	+0530	$
    F	x	Asia/Kolkata	1	+0530	$
    F	x	Asia/Kolkata	2	+0530	$
    F	x	Asia/Kolkata	3	+0530	$
    F	x	Asia/Kolkata	4	+0530	$
    F	x	Asia/Kolkata	5	+0530	$
    F	x	Asia/Kolkata	6	+0530	$
    F	x	Asia/Kolkata	7	+0530	$
    F	x	America/St_Johns	0	-0330	$
    F	x	America/St_Johns	1	-0330	$
    F	x	America/St_Johns	2	-0330	$
    F	x	America/St_Johns	3	-0330	$
    F	x	America/St_Johns	4	-0330	$
    F	x	America/St_Johns	5	-0230	$
    F	x	America/St_Johns	6	-0330	$
    F	x	America/St_Johns	7	-0330	$
    F	xx	UTC	0	+0000	$
    F	xx	UTC	1	+0000	$
    F	xx	UTC	2	+0000	$
    F	xx	UTC	3	+0000	$
    F	xx	UTC	4	+0000	$
    F	xx	UTC	5	+0000	$
    F	xx	UTC	6	+0000	$
    F	xx	UTC	7	+0000	$
    F	xx	America/New_York	0	-0500	$
    F	xx	America/New_York	1	-0500	$
    F	xx	America/New_York	2	-0500	$
    F	xx	America/New_York	3	-0500	$
    F	xx	America/New_York	4	-0500	$
    F	xx	America/New_York	5	-0400	$
    F	xx	America/New_York	6	-0500	$
    F	xx	America/New_York	7	-0500	$
    F	xx	Asia/Kolkata	0	+0530	$
    F	xx	Asia/Kolkata	1	+0530	$
    F	xx	Asia/Kolkata	2	+0530	$
    F	xx	Asia/Kolkata	3	+0530	$
    F	xx	Asia/Kolkata	4	+0530	$
    F	xx	Asia/Kolkata	5	+0530	$
    F	xx	Asia/Kolkata	6	+0530	$
    F	xx	Asia/Kolkata	7	+0530	$
    F	xx	America/St_Johns	0	-0330	$
    F	xx	America/St_Johns	1	-0330	$
    F	xx	America/St_Johns	2	-0330	$
    F	xx	America/St_Johns	3	-0330	$
    F	xx	America/St_Johns	4	-0330	$
    F	xx	America/St_Johns	5	-0230	$
    F	xx	America/St_Johns	6	-0330	$
    F	xx	America/St_Johns	7	-0330	$
    F	xxx	UTC	0	+00:00	$
    F	xxx	UTC	1	+00:00	$
    F	xxx	UTC	2	+00:00	$
    F	xxx	UTC	3	+00:00	$
    F	xxx	UTC	4	+00:00	$
    F	xxx	UTC	5	+00:00	$
    F	xxx	UTC	6	+00:00	$
    F	xxx	UTC	7	+00:00	$
    F	xxx	America/New_York	0	-05:00	$
    F	xxx	America/New_York	1	-05:00	$
    F	xxx	America/New_York	2	-05:00	$
    F	xxx	America/New_York	3	-05:00	$
    F	xxx	America/New_York	4	-05:00	$
    F	xxx	America/New_York	5	-04:00	$
    F	xxx	America/New_York	6	-05:00	$
    F	xxx	America/New_York	7	-05:00	$
    F	xxx	Asia/Kolkata	0	+05:30	$
    F	xxx	Asia/Kolkata	1	+05:30	$
    F	xxx	Asia/Kolkata	2	+05:30	$
    F	xxx	Asia/Kolkata	3	+05:30	$
    F	xxx	Asia/Kolkata	4	+05:30	$
    F	xxx	Asia/Kolkata	5	+05:30	$
    F	xxx	Asia/Kolkata	6	+05:30	$
    F	xxx	Asia/Kolkata	7	+05:30	$
    F	xxx	America/St_Johns	0	-03:30	$
    F	xxx	America/St_Johns	1	-03:30	$
    F	xxx	America/St_Johns	2	-03:30	$
    F	xxx	America/St_Johns	3	-03:30	$
    F	xxx	America/St_Johns	4	-03:30	$
    F	xxx	America/St_Johns	5	-02:30	$
    F	xxx	America/St_Johns	6	-03:30	$
    F	xxx	America/St_Johns	7	-03:30	$
    F	xxxx	UTC	0	+0000	$
    F	xxxx	UTC	1	+0000	$
    F	xxxx	UTC	2	+0000	$
    F	xxxx	UTC	3	+0000	$
    F	xxxx	UTC	4	+0000	$
    F	xxxx	UTC	5	+0000	$
    F	xxxx	UTC	6	+0000	$
    F	xxxx	UTC	7	+0000	$
    F	xxxx	America/New_York	0	-0500	$
    F	xxxx	America/New_York	1	-0500	$
    F	xxxx	America/New_York	2	-0500	$
    F	xxxx	America/New_York	3	-0500	$
    F	xxxx	America/New_York	4	-0500	$
    F	xxxx	America/New_York	5	-0400	$
    F	xxxx	America/New_York	6	-0500	$
    F	xxxx	America/New_York	7	-0500	$
    F	xxxx	Asia/Kolkata	0	+0530	$
    F	xxxx	Asia/Kolkata	1	+0530	$
    F	xxxx	Asia/Kolkata	2	+0530	$
    F	xxxx	Asia/Kolkata	3	+0530	$
    F	xxxx	Asia/Kolkata	4	+0530	$
    F	xxxx	Asia/Kolkata	5	+0530	$
    F	xxxx	Asia/Kolkata	6	+0530	$
    F	xxxx	Asia/Kolkata	7	+0530	$
    F	xxxx	America/St_Johns	0	-0330	$
    F	xxxx	America/St_Johns	1	-0330	$
    F	xxxx	America/St_Johns	2	-0330	$
    F	xxxx	America/St_Johns	3	-0330	$
    F	xxxx	America/St_Johns	4	-0330	$
    F	xxxx	America/St_Johns	5	-0230	$
    F	xxxx	America/St_Johns	6	-0330	$
    F	xxxx	America/St_Johns	7	-0330	$
    F	xxxxx	UTC	0	+00:00	$
    F	xxxxx	UTC	1	+00:00	$
    F	xxxxx	UTC	2	+00:00	$
    F	xxxxx	UTC	3	+00:00	$
    F	xxxxx	UTC	4	+00:00	$
    F	xxxxx	UTC	5	+00:00	$
    F	xxxxx	UTC	6	+00:00	$
    F	xxxxx	UTC	7	+00:00	$
    F	xxxxx	America/New_York	0	-05:00	$
    F	xxxxx	America/New_York	1	-05:00	$
    F	xxxxx	America/New_York	2	-05:00	$
    F	xxxxx	America/New_York	3	-05:00	$
    F	xxxxx	America/New_York	4	-05:00	$
    F	xxxxx	America/New_York	5	-04:00	$
    F	xxxxx	America/New_York	6	-05:00	$
    F	xxxxx	America/New_York	7	-05:00	$
    F	xxxxx	Asia/Kolkata	0	+05:30	$
    F	xxxxx	Asia/Kolkata	1	+05:30	$
    F	xxxxx	Asia/Kolkata	2	+05:30	$
    F	xxxxx	Asia/Kolkata	3	+05:30	$
    F	xxxxx	Asia/Kolkata	4	+05:30	$
    F	xxxxx	Asia/Kolkata	5	+05:30	$
    F	xxxxx	Asia/Kolkata	6	+05:30	$
    F	xxxxx	Asia/Kolkata	7	+05:30	$
    F	xxxxx	America/St_Johns	0	-03:30	$
    F	xxxxx	America/St_Johns	1	-03:30	$
    F	xxxxx	America/St_Johns	2	-03:30	$
    F	xxxxx	America/St_Johns	3	-03:30	$
    F	xxxxx	America/St_Johns	4	-03:30	$
    F	xxxxx	America/St_Johns	5	-02:30	$
    F	xxxxx	America/St_Johns	6	-03:30	$
    F	xxxxx	America/St_Johns	7	-03:30	$
    F	O	UTC	0	GMT	$
    F	O	UTC	1	GMT	$
    F	O	UTC	2	GMT	$
    F	O	UTC	3	GMT	$
    F	O	UTC	4	GMT	$
    F	O	UTC	5	GMT	$
    F	O	UTC	6	GMT	$
    F	O	UTC	7	GMT	$
    F	O	America/New_York	0	GMT-5	$
    F	O	America/New_York	1	GMT-5	$
    F	O	America/New_York	2	GMT-5	$
    F	O	America/New_York	3	GMT-5	$
    F	O	America/New_York	4	GMT-5	$
    F	O	America/New_York	5	GMT-4	$
    F	O	America/New_York	6	GMT-5	$
    F	O	America/New_York	7	GMT-5	$
    F	O	Asia/Kolkata	0	GMT+5:30	$
    F	O	Asia/Kolkata	1	GMT+5:30	$
    F	O	Asia/Kolkata	2	GMT+5:30	$
    F	O	Asia/Kolkata	3	GMT+5:30	$
    F	O	Asia/Kolkata	4	GMT+5:30	$
    F	O	Asia/Kolkata	5	GMT+5:30	$
    F	O	Asia/Kolkata	6	GMT+5:30	$
    F	O	Asia/Kolkata	7	GMT+5:30	$
    F	O	America/St_Johns	0	GMT-3:30	$
    F	O	America/St_Johns	1	GMT-3:30	$
    F	O	America/St_Johns	2	GMT-3:30	$
    F	O	America/St_Johns	3	GMT-3:30	$
    F	O	America/St_Johns	4	GMT-3:30	$
    F	O	America/St_Johns	5	GMT-2:30	$
    F	O	America/St_Johns	6	GMT-3:30	$
    F	O	America/St_Johns	7	GMT-3:30	$
    F	OOOO	UTC	0	GMT	$
    F	OOOO	UTC	1	GMT	$
    F	OOOO	UTC	2	GMT	$
    F	OOOO	UTC	3	GMT	$
    F	OOOO	UTC	4	GMT	$
    F	OOOO	UTC	5	GMT	$
    F	OOOO	UTC	6	GMT	$
    F	OOOO	UTC	7	GMT	$
    F	OOOO	America/New_York	0	GMT-05:00	$
    F	OOOO	America/New_York	1	GMT-05:00	$
    F	OOOO	America/New_York	2	GMT-05:00	$
    F	OOOO	America/New_York	3	GMT-05:00	$
    F	OOOO	America/New_York	4	GMT-05:00	$
    F	OOOO	America/New_York	5	GMT-04:00	$
    F	OOOO	America/New_York	6	GMT-05:00	$
    F	OOOO	America/New_York	7	GMT-05:00	$
    F	OOOO	Asia/Kolkata	0	GMT+05:30	$
    F	OOOO	Asia/Kolkata	1	GMT+05:30	$
    F	OOOO	Asia/Kolkata	2	GMT+05:30	$
    F	OOOO	Asia/Kolkata	3	GMT+05:30	$
    F	OOOO	Asia/Kolkata	4	GMT+05:30	$
    F	OOOO	Asia/Kolkata	5	GMT+05:30	$
    F	OOOO	Asia/Kolkata	6	GMT+05:30	$
    F	OOOO	Asia/Kolkata	7	GMT+05:30	$
    F	OOOO	America/St_Johns	0	GMT-03:30	$
    F	OOOO	America/St_Johns	1	GMT-03:30	$
    F	OOOO	America/St_Johns	2	GMT-03:30	$
    F	OOOO	America/St_Johns	3	GMT-03:30	$
    F	OOOO	America/St_Johns	4	GMT-03:30	$
    F	OOOO	America/St_Johns	5	GMT-02:30	$
    F	OOOO	America/St_Johns	6	GMT-03:30	$
    F	OOOO	America/St_Johns	7	GMT-03:30	$
    F	yyyy/MM/dd/HH/	UTC	0	2026/11/21/13/	$
    F	yyyy/MM/dd/HH/	UTC	1	2024/02/29/00/	$
    F	yyyy/MM/dd/HH/	UTC	2	2023/12/31/23/	$
    F	yyyy/MM/dd/HH/	UTC	3	2000/01/01/00/	$
    F	yyyy/MM/dd/HH/	UTC	4	1970/01/01/00/	$
    F	yyyy/MM/dd/HH/	UTC	5	2026/07/04/12/	$
    F	yyyy/MM/dd/HH/	UTC	6	1969/12/31/23/	$
    F	yyyy/MM/dd/HH/	UTC	7	2100/03/01/00/	$
    F	yyyy/MM/dd/HH/	America/New_York	0	2026/11/21/08/	$
    F	yyyy/MM/dd/HH/	America/New_York	1	2024/02/28/19/	$
    F	yyyy/MM/dd/HH/	America/New_York	2	2023/12/31/18/	$
    F	yyyy/MM/dd/HH/	America/New_York	3	1999/12/31/19/	$
    F	yyyy/MM/dd/HH/	America/New_York	4	1969/12/31/19/	$
    F	yyyy/MM/dd/HH/	America/New_York	5	2026/07/04/08/	$
    F	yyyy/MM/dd/HH/	America/New_York	6	1969/12/31/18/	$
    F	yyyy/MM/dd/HH/	America/New_York	7	2100/02/28/19/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	0	2026/11/21/18/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	1	2024/02/29/05/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	2	2024/01/01/05/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	3	2000/01/01/05/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	4	1970/01/01/05/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	5	2026/07/04/18/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	6	1970/01/01/05/	$
    F	yyyy/MM/dd/HH/	Asia/Kolkata	7	2100/03/01/05/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	0	2026/11/21/09/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	1	2024/02/28/20/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	2	2023/12/31/20/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	3	1999/12/31/20/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	4	1969/12/31/20/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	5	2026/07/04/10/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	6	1969/12/31/20/	$
    F	yyyy/MM/dd/HH/	America/St_Johns	7	2100/02/28/20/	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	0	2026-11-21T13:05:09.123Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	1	2024-02-29T00:00:00.000Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	2	2023-12-31T23:59:59.999Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	3	2000-01-01T00:00:00.000Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	4	1970-01-01T00:00:00.000Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	5	2026-07-04T12:30:00.500Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	6	1969-12-31T23:59:59.250Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	UTC	7	2100-03-01T00:07:00.000Z	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	0	2026-11-21T08:05:09.123-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	1	2024-02-28T19:00:00.000-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	2	2023-12-31T18:59:59.999-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	3	1999-12-31T19:00:00.000-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	4	1969-12-31T19:00:00.000-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	5	2026-07-04T08:30:00.500-04:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	6	1969-12-31T18:59:59.250-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/New_York	7	2100-02-28T19:07:00.000-05:00	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	0	2026-11-21T18:35:09.123+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	1	2024-02-29T05:30:00.000+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	2	2024-01-01T05:29:59.999+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	3	2000-01-01T05:30:00.000+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	4	1970-01-01T05:30:00.000+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	5	2026-07-04T18:00:00.500+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	6	1970-01-01T05:29:59.250+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	Asia/Kolkata	7	2100-03-01T05:37:00.000+05:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	0	2026-11-21T09:35:09.123-03:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	1	2024-02-28T20:30:00.000-03:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	2	2023-12-31T20:29:59.999-03:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	3	1999-12-31T20:30:00.000-03:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	4	1969-12-31T20:30:00.000-03:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	5	2026-07-04T10:00:00.500-02:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	6	1969-12-31T20:29:59.250-03:30	$
    F	yyyy-MM-dd'T'HH:mm:ss.SSSXXX	America/St_Johns	7	2100-02-28T20:37:00.000-03:30	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	0	year=2026/month=11/day=21/hour=13	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	1	year=2024/month=02/day=29/hour=00	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	2	year=2023/month=12/day=31/hour=23	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	3	year=2000/month=01/day=01/hour=00	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	4	year=1970/month=01/day=01/hour=00	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	5	year=2026/month=07/day=04/hour=12	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	6	year=1969/month=12/day=31/hour=23	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	UTC	7	year=2100/month=03/day=01/hour=00	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	0	year=2026/month=11/day=21/hour=08	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	1	year=2024/month=02/day=28/hour=19	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	2	year=2023/month=12/day=31/hour=18	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	3	year=1999/month=12/day=31/hour=19	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	4	year=1969/month=12/day=31/hour=19	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	5	year=2026/month=07/day=04/hour=08	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	6	year=1969/month=12/day=31/hour=18	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/New_York	7	year=2100/month=02/day=28/hour=19	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	0	year=2026/month=11/day=21/hour=18	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	1	year=2024/month=02/day=29/hour=05	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	2	year=2024/month=01/day=01/hour=05	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	3	year=2000/month=01/day=01/hour=05	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	4	year=1970/month=01/day=01/hour=05	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	5	year=2026/month=07/day=04/hour=18	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	6	year=1970/month=01/day=01/hour=05	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	Asia/Kolkata	7	year=2100/month=03/day=01/hour=05	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	0	year=2026/month=11/day=21/hour=09	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	1	year=2024/month=02/day=28/hour=20	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	2	year=2023/month=12/day=31/hour=20	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	3	year=1999/month=12/day=31/hour=20	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	4	year=1969/month=12/day=31/hour=20	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	5	year=2026/month=07/day=04/hour=10	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	6	year=1969/month=12/day=31/hour=20	$
    F	'year='yyyy'/month='MM'/day='dd'/hour='HH	America/St_Johns	7	year=2100/month=02/day=28/hour=20	$
    F	'it''s' HH''mm	UTC	0	it's 13'05	$
    F	'it''s' HH''mm	UTC	1	it's 00'00	$
    F	'it''s' HH''mm	UTC	2	it's 23'59	$
    F	'it''s' HH''mm	UTC	3	it's 00'00	$
    F	'it''s' HH''mm	UTC	4	it's 00'00	$
    F	'it''s' HH''mm	UTC	5	it's 12'30	$
    F	'it''s' HH''mm	UTC	6	it's 23'59	$
    F	'it''s' HH''mm	UTC	7	it's 00'07	$
    F	'it''s' HH''mm	America/New_York	0	it's 08'05	$
    F	'it''s' HH''mm	America/New_York	1	it's 19'00	$
    F	'it''s' HH''mm	America/New_York	2	it's 18'59	$
    F	'it''s' HH''mm	America/New_York	3	it's 19'00	$
    F	'it''s' HH''mm	America/New_York	4	it's 19'00	$
    F	'it''s' HH''mm	America/New_York	5	it's 08'30	$
    F	'it''s' HH''mm	America/New_York	6	it's 18'59	$
    F	'it''s' HH''mm	America/New_York	7	it's 19'07	$
    F	'it''s' HH''mm	Asia/Kolkata	0	it's 18'35	$
    F	'it''s' HH''mm	Asia/Kolkata	1	it's 05'30	$
    F	'it''s' HH''mm	Asia/Kolkata	2	it's 05'29	$
    F	'it''s' HH''mm	Asia/Kolkata	3	it's 05'30	$
    F	'it''s' HH''mm	Asia/Kolkata	4	it's 05'30	$
    F	'it''s' HH''mm	Asia/Kolkata	5	it's 18'00	$
    F	'it''s' HH''mm	Asia/Kolkata	6	it's 05'29	$
    F	'it''s' HH''mm	Asia/Kolkata	7	it's 05'37	$
    F	'it''s' HH''mm	America/St_Johns	0	it's 09'35	$
    F	'it''s' HH''mm	America/St_Johns	1	it's 20'30	$
    F	'it''s' HH''mm	America/St_Johns	2	it's 20'29	$
    F	'it''s' HH''mm	America/St_Johns	3	it's 20'30	$
    F	'it''s' HH''mm	America/St_Johns	4	it's 20'30	$
    F	'it''s' HH''mm	America/St_Johns	5	it's 10'00	$
    F	'it''s' HH''mm	America/St_Johns	6	it's 20'29	$
    F	'it''s' HH''mm	America/St_Johns	7	it's 20'37	$
    F	''	UTC	0	'	$
    F	''	UTC	1	'	$
    F	''	UTC	2	'	$
    F	''	UTC	3	'	$
    F	''	UTC	4	'	$
    F	''	UTC	5	'	$
    F	''	UTC	6	'	$
    F	''	UTC	7	'	$
    F	''	America/New_York	0	'	$
    F	''	America/New_York	1	'	$
    F	''	America/New_York	2	'	$
    F	''	America/New_York	3	'	$
    F	''	America/New_York	4	'	$
    F	''	America/New_York	5	'	$
    F	''	America/New_York	6	'	$
    F	''	America/New_York	7	'	$
    F	''	Asia/Kolkata	0	'	$
    F	''	Asia/Kolkata	1	'	$
    F	''	Asia/Kolkata	2	'	$
    F	''	Asia/Kolkata	3	'	$
    F	''	Asia/Kolkata	4	'	$
    F	''	Asia/Kolkata	5	'	$
    F	''	Asia/Kolkata	6	'	$
    F	''	Asia/Kolkata	7	'	$
    F	''	America/St_Johns	0	'	$
    F	''	America/St_Johns	1	'	$
    F	''	America/St_Johns	2	'	$
    F	''	America/St_Johns	3	'	$
    F	''	America/St_Johns	4	'	$
    F	''	America/St_Johns	5	'	$
    F	''	America/St_Johns	6	'	$
    F	''	America/St_Johns	7	'	$
    F	[yyyy][MM]	UTC	0	202611	$
    F	[yyyy][MM]	UTC	1	202402	$
    F	[yyyy][MM]	UTC	2	202312	$
    F	[yyyy][MM]	UTC	3	200001	$
    F	[yyyy][MM]	UTC	4	197001	$
    F	[yyyy][MM]	UTC	5	202607	$
    F	[yyyy][MM]	UTC	6	196912	$
    F	[yyyy][MM]	UTC	7	210003	$
    F	[yyyy][MM]	America/New_York	0	202611	$
    F	[yyyy][MM]	America/New_York	1	202402	$
    F	[yyyy][MM]	America/New_York	2	202312	$
    F	[yyyy][MM]	America/New_York	3	199912	$
    F	[yyyy][MM]	America/New_York	4	196912	$
    F	[yyyy][MM]	America/New_York	5	202607	$
    F	[yyyy][MM]	America/New_York	6	196912	$
    F	[yyyy][MM]	America/New_York	7	210002	$
    F	[yyyy][MM]	Asia/Kolkata	0	202611	$
    F	[yyyy][MM]	Asia/Kolkata	1	202402	$
    F	[yyyy][MM]	Asia/Kolkata	2	202401	$
    F	[yyyy][MM]	Asia/Kolkata	3	200001	$
    F	[yyyy][MM]	Asia/Kolkata	4	197001	$
    F	[yyyy][MM]	Asia/Kolkata	5	202607	$
    F	[yyyy][MM]	Asia/Kolkata	6	197001	$
    F	[yyyy][MM]	Asia/Kolkata	7	210003	$
    F	[yyyy][MM]	America/St_Johns	0	202611	$
    F	[yyyy][MM]	America/St_Johns	1	202402	$
    F	[yyyy][MM]	America/St_Johns	2	202312	$
    F	[yyyy][MM]	America/St_Johns	3	199912	$
    F	[yyyy][MM]	America/St_Johns	4	196912	$
    F	[yyyy][MM]	America/St_Johns	5	202607	$
    F	[yyyy][MM]	America/St_Johns	6	196912	$
    F	[yyyy][MM]	America/St_Johns	7	210002	$
    F	[yyyy[-MM]]dd	UTC	0	2026-1121	$
    F	[yyyy[-MM]]dd	UTC	1	2024-0229	$
    F	[yyyy[-MM]]dd	UTC	2	2023-1231	$
    F	[yyyy[-MM]]dd	UTC	3	2000-0101	$
    F	[yyyy[-MM]]dd	UTC	4	1970-0101	$
    F	[yyyy[-MM]]dd	UTC	5	2026-0704	$
    F	[yyyy[-MM]]dd	UTC	6	1969-1231	$
    F	[yyyy[-MM]]dd	UTC	7	2100-0301	$
    F	[yyyy[-MM]]dd	America/New_York	0	2026-1121	$
    F	[yyyy[-MM]]dd	America/New_York	1	2024-0228	$
    F	[yyyy[-MM]]dd	America/New_York	2	2023-1231	$
    F	[yyyy[-MM]]dd	America/New_York	3	1999-1231	$
    F	[yyyy[-MM]]dd	America/New_York	4	1969-1231	$
    F	[yyyy[-MM]]dd	America/New_York	5	2026-0704	$
    F	[yyyy[-MM]]dd	America/New_York	6	1969-1231	$
    F	[yyyy[-MM]]dd	America/New_York	7	2100-0228	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	0	2026-1121	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	1	2024-0229	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	2	2024-0101	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	3	2000-0101	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	4	1970-0101	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	5	2026-0704	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	6	1970-0101	$
    F	[yyyy[-MM]]dd	Asia/Kolkata	7	2100-0301	$
    F	[yyyy[-MM]]dd	America/St_Johns	0	2026-1121	$
    F	[yyyy[-MM]]dd	America/St_Johns	1	2024-0228	$
    F	[yyyy[-MM]]dd	America/St_Johns	2	2023-1231	$
    F	[yyyy[-MM]]dd	America/St_Johns	3	1999-1231	$
    F	[yyyy[-MM]]dd	America/St_Johns	4	1969-1231	$
    F	[yyyy[-MM]]dd	America/St_Johns	5	2026-0704	$
    F	[yyyy[-MM]]dd	America/St_Johns	6	1969-1231	$
    F	[yyyy[-MM]]dd	America/St_Johns	7	2100-0228	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	0	Saturday, November 21, 2026 1:05 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	1	Thursday, February 29, 2024 12:00 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	2	Sunday, December 31, 2023 11:59 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	3	Saturday, January 1, 2000 12:00 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	4	Thursday, January 1, 1970 12:00 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	5	Saturday, July 4, 2026 12:30 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	6	Wednesday, December 31, 1969 11:59 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	UTC	7	Monday, March 1, 2100 12:07 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	0	Saturday, November 21, 2026 8:05 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	1	Wednesday, February 28, 2024 7:00 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	2	Sunday, December 31, 2023 6:59 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	3	Friday, December 31, 1999 7:00 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	4	Wednesday, December 31, 1969 7:00 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	5	Saturday, July 4, 2026 8:30 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	6	Wednesday, December 31, 1969 6:59 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/New_York	7	Sunday, February 28, 2100 7:07 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	0	Saturday, November 21, 2026 6:35 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	1	Thursday, February 29, 2024 5:30 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	2	Monday, January 1, 2024 5:29 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	3	Saturday, January 1, 2000 5:30 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	4	Thursday, January 1, 1970 5:30 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	5	Saturday, July 4, 2026 6:00 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	6	Thursday, January 1, 1970 5:29 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	Asia/Kolkata	7	Monday, March 1, 2100 5:37 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	0	Saturday, November 21, 2026 9:35 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	1	Wednesday, February 28, 2024 8:30 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	2	Sunday, December 31, 2023 8:29 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	3	Friday, December 31, 1999 8:30 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	4	Wednesday, December 31, 1969 8:30 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	5	Saturday, July 4, 2026 10:00 AM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	6	Wednesday, December 31, 1969 8:29 PM	$
    F	EEEE, MMMM d, yyyy h:mm a	America/St_Johns	7	Sunday, February 28, 2100 8:37 PM	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	0	2026.11.21 AD at 13:05:09	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	1	2024.02.29 AD at 00:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	2	2023.12.31 AD at 23:59:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	3	2000.01.01 AD at 00:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	4	1970.01.01 AD at 00:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	5	2026.07.04 AD at 12:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	6	1969.12.31 AD at 23:59:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	UTC	7	2100.03.01 AD at 00:07:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	0	2026.11.21 AD at 08:05:09	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	1	2024.02.28 AD at 19:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	2	2023.12.31 AD at 18:59:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	3	1999.12.31 AD at 19:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	4	1969.12.31 AD at 19:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	5	2026.07.04 AD at 08:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	6	1969.12.31 AD at 18:59:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/New_York	7	2100.02.28 AD at 19:07:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	0	2026.11.21 AD at 18:35:09	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	1	2024.02.29 AD at 05:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	2	2024.01.01 AD at 05:29:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	3	2000.01.01 AD at 05:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	4	1970.01.01 AD at 05:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	5	2026.07.04 AD at 18:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	6	1970.01.01 AD at 05:29:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	Asia/Kolkata	7	2100.03.01 AD at 05:37:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	0	2026.11.21 AD at 09:35:09	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	1	2024.02.28 AD at 20:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	2	2023.12.31 AD at 20:29:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	3	1999.12.31 AD at 20:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	4	1969.12.31 AD at 20:30:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	5	2026.07.04 AD at 10:00:00	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	6	1969.12.31 AD at 20:29:59	$
    F	yyyy.MM.dd G 'at' HH:mm:ss	America/St_Johns	7	2100.02.28 AD at 20:37:00	$
    F	dd-MMM-yy	UTC	0	21-Nov-26	$
    F	dd-MMM-yy	UTC	1	29-Feb-24	$
    F	dd-MMM-yy	UTC	2	31-Dec-23	$
    F	dd-MMM-yy	UTC	3	01-Jan-00	$
    F	dd-MMM-yy	UTC	4	01-Jan-70	$
    F	dd-MMM-yy	UTC	5	04-Jul-26	$
    F	dd-MMM-yy	UTC	6	31-Dec-69	$
    F	dd-MMM-yy	UTC	7	01-Mar-00	$
    F	dd-MMM-yy	America/New_York	0	21-Nov-26	$
    F	dd-MMM-yy	America/New_York	1	28-Feb-24	$
    F	dd-MMM-yy	America/New_York	2	31-Dec-23	$
    F	dd-MMM-yy	America/New_York	3	31-Dec-99	$
    F	dd-MMM-yy	America/New_York	4	31-Dec-69	$
    F	dd-MMM-yy	America/New_York	5	04-Jul-26	$
    F	dd-MMM-yy	America/New_York	6	31-Dec-69	$
    F	dd-MMM-yy	America/New_York	7	28-Feb-00	$
    F	dd-MMM-yy	Asia/Kolkata	0	21-Nov-26	$
    F	dd-MMM-yy	Asia/Kolkata	1	29-Feb-24	$
    F	dd-MMM-yy	Asia/Kolkata	2	01-Jan-24	$
    F	dd-MMM-yy	Asia/Kolkata	3	01-Jan-00	$
    F	dd-MMM-yy	Asia/Kolkata	4	01-Jan-70	$
    F	dd-MMM-yy	Asia/Kolkata	5	04-Jul-26	$
    F	dd-MMM-yy	Asia/Kolkata	6	01-Jan-70	$
    F	dd-MMM-yy	Asia/Kolkata	7	01-Mar-00	$
    F	dd-MMM-yy	America/St_Johns	0	21-Nov-26	$
    F	dd-MMM-yy	America/St_Johns	1	28-Feb-24	$
    F	dd-MMM-yy	America/St_Johns	2	31-Dec-23	$
    F	dd-MMM-yy	America/St_Johns	3	31-Dec-99	$
    F	dd-MMM-yy	America/St_Johns	4	31-Dec-69	$
    F	dd-MMM-yy	America/St_Johns	5	04-Jul-26	$
    F	dd-MMM-yy	America/St_Johns	6	31-Dec-69	$
    F	dd-MMM-yy	America/St_Johns	7	28-Feb-00	$
    F	hh 'o''clock' a	UTC	0	01 o'clock PM	$
    F	hh 'o''clock' a	UTC	1	12 o'clock AM	$
    F	hh 'o''clock' a	UTC	2	11 o'clock PM	$
    F	hh 'o''clock' a	UTC	3	12 o'clock AM	$
    F	hh 'o''clock' a	UTC	4	12 o'clock AM	$
    F	hh 'o''clock' a	UTC	5	12 o'clock PM	$
    F	hh 'o''clock' a	UTC	6	11 o'clock PM	$
    F	hh 'o''clock' a	UTC	7	12 o'clock AM	$
    F	hh 'o''clock' a	America/New_York	0	08 o'clock AM	$
    F	hh 'o''clock' a	America/New_York	1	07 o'clock PM	$
    F	hh 'o''clock' a	America/New_York	2	06 o'clock PM	$
    F	hh 'o''clock' a	America/New_York	3	07 o'clock PM	$
    F	hh 'o''clock' a	America/New_York	4	07 o'clock PM	$
    F	hh 'o''clock' a	America/New_York	5	08 o'clock AM	$
    F	hh 'o''clock' a	America/New_York	6	06 o'clock PM	$
    F	hh 'o''clock' a	America/New_York	7	07 o'clock PM	$
    F	hh 'o''clock' a	Asia/Kolkata	0	06 o'clock PM	$
    F	hh 'o''clock' a	Asia/Kolkata	1	05 o'clock AM	$
    F	hh 'o''clock' a	Asia/Kolkata	2	05 o'clock AM	$
    F	hh 'o''clock' a	Asia/Kolkata	3	05 o'clock AM	$
    F	hh 'o''clock' a	Asia/Kolkata	4	05 o'clock AM	$
    F	hh 'o''clock' a	Asia/Kolkata	5	06 o'clock PM	$
    F	hh 'o''clock' a	Asia/Kolkata	6	05 o'clock AM	$
    F	hh 'o''clock' a	Asia/Kolkata	7	05 o'clock AM	$
    F	hh 'o''clock' a	America/St_Johns	0	09 o'clock AM	$
    F	hh 'o''clock' a	America/St_Johns	1	08 o'clock PM	$
    F	hh 'o''clock' a	America/St_Johns	2	08 o'clock PM	$
    F	hh 'o''clock' a	America/St_Johns	3	08 o'clock PM	$
    F	hh 'o''clock' a	America/St_Johns	4	08 o'clock PM	$
    F	hh 'o''clock' a	America/St_Johns	5	10 o'clock AM	$
    F	hh 'o''clock' a	America/St_Johns	6	08 o'clock PM	$
    F	hh 'o''clock' a	America/St_Johns	7	08 o'clock PM	$
    F	éyyyy→MM	UTC	0	é2026→11	$
    F	éyyyy→MM	UTC	1	é2024→02	$
    F	éyyyy→MM	UTC	2	é2023→12	$
    F	éyyyy→MM	UTC	3	é2000→01	$
    F	éyyyy→MM	UTC	4	é1970→01	$
    F	éyyyy→MM	UTC	5	é2026→07	$
    F	éyyyy→MM	UTC	6	é1969→12	$
    F	éyyyy→MM	UTC	7	é2100→03	$
    F	éyyyy→MM	America/New_York	0	é2026→11	$
    F	éyyyy→MM	America/New_York	1	é2024→02	$
    F	éyyyy→MM	America/New_York	2	é2023→12	$
    F	éyyyy→MM	America/New_York	3	é1999→12	$
    F	éyyyy→MM	America/New_York	4	é1969→12	$
    F	éyyyy→MM	America/New_York	5	é2026→07	$
    F	éyyyy→MM	America/New_York	6	é1969→12	$
    F	éyyyy→MM	America/New_York	7	é2100→02	$
    F	éyyyy→MM	Asia/Kolkata	0	é2026→11	$
    F	éyyyy→MM	Asia/Kolkata	1	é2024→02	$
    F	éyyyy→MM	Asia/Kolkata	2	é2024→01	$
    F	éyyyy→MM	Asia/Kolkata	3	é2000→01	$
    F	éyyyy→MM	Asia/Kolkata	4	é1970→01	$
    F	éyyyy→MM	Asia/Kolkata	5	é2026→07	$
    F	éyyyy→MM	Asia/Kolkata	6	é1970→01	$
    F	éyyyy→MM	Asia/Kolkata	7	é2100→03	$
    F	éyyyy→MM	America/St_Johns	0	é2026→11	$
    F	éyyyy→MM	America/St_Johns	1	é2024→02	$
    F	éyyyy→MM	America/St_Johns	2	é2023→12	$
    F	éyyyy→MM	America/St_Johns	3	é1999→12	$
    F	éyyyy→MM	America/St_Johns	4	é1969→12	$
    F	éyyyy→MM	America/St_Johns	5	é2026→07	$
    F	éyyyy→MM	America/St_Johns	6	é1969→12	$
    F	éyyyy→MM	America/St_Johns	7	é2100→02	$
    F	yyyyMMddHHmmssSSS	UTC	0	20261121130509123	$
    F	yyyyMMddHHmmssSSS	UTC	1	20240229000000000	$
    F	yyyyMMddHHmmssSSS	UTC	2	20231231235959999	$
    F	yyyyMMddHHmmssSSS	UTC	3	20000101000000000	$
    F	yyyyMMddHHmmssSSS	UTC	4	19700101000000000	$
    F	yyyyMMddHHmmssSSS	UTC	5	20260704123000500	$
    F	yyyyMMddHHmmssSSS	UTC	6	19691231235959250	$
    F	yyyyMMddHHmmssSSS	UTC	7	21000301000700000	$
    F	yyyyMMddHHmmssSSS	America/New_York	0	20261121080509123	$
    F	yyyyMMddHHmmssSSS	America/New_York	1	20240228190000000	$
    F	yyyyMMddHHmmssSSS	America/New_York	2	20231231185959999	$
    F	yyyyMMddHHmmssSSS	America/New_York	3	19991231190000000	$
    F	yyyyMMddHHmmssSSS	America/New_York	4	19691231190000000	$
    F	yyyyMMddHHmmssSSS	America/New_York	5	20260704083000500	$
    F	yyyyMMddHHmmssSSS	America/New_York	6	19691231185959250	$
    F	yyyyMMddHHmmssSSS	America/New_York	7	21000228190700000	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	0	20261121183509123	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	1	20240229053000000	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	2	20240101052959999	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	3	20000101053000000	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	4	19700101053000000	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	5	20260704180000500	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	6	19700101052959250	$
    F	yyyyMMddHHmmssSSS	Asia/Kolkata	7	21000301053700000	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	0	20261121093509123	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	1	20240228203000000	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	2	20231231202959999	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	3	19991231203000000	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	4	19691231203000000	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	5	20260704100000500	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	6	19691231202959250	$
    F	yyyyMMddHHmmssSSS	America/St_Johns	7	21000228203700000	$
    F	...	UTC	0	...	$
    F	...	UTC	1	...	$
    F	...	UTC	2	...	$
    F	...	UTC	3	...	$
    F	...	UTC	4	...	$
    F	...	UTC	5	...	$
    F	...	UTC	6	...	$
    F	...	UTC	7	...	$
    F	...	America/New_York	0	...	$
    F	...	America/New_York	1	...	$
    F	...	America/New_York	2	...	$
    F	...	America/New_York	3	...	$
    F	...	America/New_York	4	...	$
    F	...	America/New_York	5	...	$
    F	...	America/New_York	6	...	$
    F	...	America/New_York	7	...	$
    F	...	Asia/Kolkata	0	...	$
    F	...	Asia/Kolkata	1	...	$
    F	...	Asia/Kolkata	2	...	$
    F	...	Asia/Kolkata	3	...	$
    F	...	Asia/Kolkata	4	...	$
    F	...	Asia/Kolkata	5	...	$
    F	...	Asia/Kolkata	6	...	$
    F	...	Asia/Kolkata	7	...	$
    F	...	America/St_Johns	0	...	$
    F	...	America/St_Johns	1	...	$
    F	...	America/St_Johns	2	...	$
    F	...	America/St_Johns	3	...	$
    F	...	America/St_Johns	4	...	$
    F	...	America/St_Johns	5	...	$
    F	...	America/St_Johns	6	...	$
    F	...	America/St_Johns	7	...	$
    F		UTC	0		$
    F		UTC	1		$
    F		UTC	2		$
    F		UTC	3		$
    F		UTC	4		$
    F		UTC	5		$
    F		UTC	6		$
    F		UTC	7		$
    F		America/New_York	0		$
    F		America/New_York	1		$
    F		America/New_York	2		$
    F		America/New_York	3		$
    F		America/New_York	4		$
    F		America/New_York	5		$
    F		America/New_York	6		$
    F		America/New_York	7		$
    F		Asia/Kolkata	0		$
    F		Asia/Kolkata	1		$
    F		Asia/Kolkata	2		$
    F		Asia/Kolkata	3		$
    F		Asia/Kolkata	4		$
    F		Asia/Kolkata	5		$
    F		Asia/Kolkata	6		$
    F		Asia/Kolkata	7		$
    F		America/St_Johns	0		$
    F		America/St_Johns	1		$
    F		America/St_Johns	2		$
    F		America/St_Johns	3		$
    F		America/St_Johns	4		$
    F		America/St_Johns	5		$
    F		America/St_Johns	6		$
    F		America/St_Johns	7		$
    E	aa	Too many pattern letters: a	$
    E	ddd	Too many pattern letters: d	$
    E	DDDD	Too many pattern letters: D	$
    E	HHH	Too many pattern letters: H	$
    E	hhh	Too many pattern letters: h	$
    E	kkk	Too many pattern letters: k	$
    E	KKK	Too many pattern letters: K	$
    E	mmm	Too many pattern letters: m	$
    E	sss	Too many pattern letters: s	$
    E	EEEEEE	Too many pattern letters: E	$
    E	MMMMMM	Too many pattern letters: M	$
    E	LLLLLL	Too many pattern letters: L	$
    E	SSSSSSSSSS	Minimum width must be from 0 to 9 inclusive but was 10	$
    E	yyyyyyyyyyyyyyyyyyyy	The minimum width must be from 1 to 19 inclusive but was 20	$
    E	uuuuuuuuuuuuuuuuuuuu	The minimum width must be from 1 to 19 inclusive but was 20	$
    E	nnnnnnnnnnnnnnnnnnnn	The minimum width must be from 1 to 19 inclusive but was 20	$
    E	OO	Pattern letter count must be 1 or 4: O	$
    E	OOO	Pattern letter count must be 1 or 4: O	$
    E	ZZZZZZ	Too many pattern letters: Z	$
    E	XXXXXX	Too many pattern letters: X	$
    E	xxxxxx	Too many pattern letters: x	$
    E	QQQQQQ	Too many pattern letters: Q	$
    E	qqqqqq	Too many pattern letters: q	$
    E	GGGGGG	Too many pattern letters: G	$
    E	b	Unknown pattern letter: b	$
    E	C	Unknown pattern letter: C	$
    E	f	Unknown pattern letter: f	$
    E	I	Unknown pattern letter: I	$
    E	J	Unknown pattern letter: J	$
    E	l	Unknown pattern letter: l	$
    E	o	Unknown pattern letter: o	$
    E	P	Unknown pattern letter: P	$
    E	R	Unknown pattern letter: R	$
    E	T	Unknown pattern letter: T	$
    E	U	Unknown pattern letter: U	$
    E	yyyy-bb	Unknown pattern letter: b	$
    E	#	Pattern includes reserved character: '#'	$
    E	{	Pattern includes reserved character: '{'	$
    E	}	Pattern includes reserved character: '}'	$
    E	yyyy]	Pattern invalid as it contains ] without previous [	$
    E	]	Pattern invalid as it contains ] without previous [	$
    E	'abc	Pattern ends with an incomplete string literal: 'abc	$
    E	yyyy'MM	Pattern ends with an incomplete string literal: yyyy'MM	$
    E	pp	Pad letter 'p' must be followed by valid pad pattern: pp	$
    E	VVV	Pattern letter count must be 2: V	$
    E	V	Pattern letter count must be 2: V	$
    """#

/*
Golden.java, run as `java Golden < patterns.txt` where each line of patterns.txt is `V <pattern>`
(valid) or `E <pattern>` (expected to be rejected):

import java.time.*;
import java.time.format.*;
import java.util.*;

// Prints tab-separated golden rows for the Swift tests: what java.time.format.DateTimeFormatter
// (Locale.US) prints for each pattern, instant and zone, and the message of each rejected pattern.
public class Golden {
    static final String[] INSTANTS = {
        "2026-11-21T13:05:09.123456Z", "2024-02-29T00:00:00Z", "2023-12-31T23:59:59.999999Z",
        "2000-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-07-04T12:30:00.5Z", "1969-12-31T23:59:59.25Z",
        "2100-03-01T00:07:00Z",
    };
    static final String[] ZONES = { "UTC", "America/New_York", "Asia/Kolkata", "America/St_Johns" };

    public static void main(String[] args) throws Exception {
        List<String> valid = new ArrayList<>();
        List<String> invalid = new ArrayList<>();
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = r.readLine()) != null) {
            if (line.isEmpty() || line.startsWith("#")) continue;
            String p = line.substring(2);
            if (line.startsWith("V ")) valid.add(p); else invalid.add(p);
        }
        for (String p : valid) {
            DateTimeFormatter f = DateTimeFormatter.ofPattern(p, Locale.US);
            for (String z : ZONES) {
                for (int i = 0; i < INSTANTS.length; i++) {
                    ZonedDateTime t = Instant.parse(INSTANTS[i]).atZone(ZoneId.of(z));
                    System.out.println("F\t" + p + "\t" + z + "\t" + i + "\t" + f.format(t));
                }
            }
        }
        for (String p : invalid) {
            try {
                DateTimeFormatter.ofPattern(p, Locale.US);
                System.out.println("UNEXPECTED-OK\t" + p);
            } catch (IllegalArgumentException e) {
                System.out.println("E\t" + p + "\t" + e.getMessage());
            }
        }
    }
}

*/
