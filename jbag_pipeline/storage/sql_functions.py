"""Which DuckDB functions a `jbag sql` query may call: a reviewed allowlist; every other function is refused.

ALLOWED was reviewed against duckdb_functions() of DuckDB 2.0.1 (scalar, aggregate, window, table functions and
macros): none of them writes, changes the session or reads outside DuckDB's allowed directory. A function a later
DuckDB adds is refused until reviewed (tests/storage/test_sql_functions.py walks the list and fails on it).
"""

from __future__ import annotations

from typing import Callable

_SQL_TEXT = "it runs or plans SQL text no check sees"
_WRITES = "it writes or changes the database's state"
_PYTHON = "it reads Python objects by address"
# Names refused with the reason; any name not in ALLOWED is refused too (as unreviewed).
REFUSED: dict[str, str] = {
    # planning a statement can already act: planning EXPORT DATABASE creates its directory
    "json_serialize_plan": _SQL_TEXT, "json_serialize_sql": _SQL_TEXT, "json_deserialize_sql": _SQL_TEXT,
    "json_execute_serialized_sql": _SQL_TEXT, "query": _SQL_TEXT, "query_table": _SQL_TEXT,
    "checkpoint": _WRITES, "force_checkpoint": _WRITES, "copy_database": _WRITES, "import_database": _WRITES,
    "write_log": _WRITES, "truncate_duckdb_logs": _WRITES, "add_grammar_extension": _WRITES,
    "remove_grammar_extension": _WRITES, "add_parquet_key": _WRITES, "create_external_resource": _WRITES,
    "deregister_external_resource": _WRITES, "destroy_external_resource": _WRITES,
    "register_external_resource": _WRITES, "register_external_resource_type": _WRITES,
    "verify_parallelism": _WRITES, "setval": _WRITES, "nextval": _WRITES,
    "arrow_scan": _PYTHON, "arrow_scan_dumb": _PYTHON, "pandas_scan": _PYTHON, "python_arrow_scan": _PYTHON,
    "python_map_function": _PYTHON,
    "read_duckdb": "it opens database files",
}
_REFUSED_PREFIXES = {"enable_": _WRITES, "disable_": _WRITES, "__internal_": "it is DuckDB-internal"}
# read_csv options that create tables in the session (they could hide a view)
REJECTS_OPTIONS = {"store_rejects", "rejects_table", "rejects_scan", "rejects_limit"}

# The system macros on it expand to listed functions; histogram()/histogram_values() call query_table() with a
# table name, not SQL text, which is why they may run although query_table() itself may not be called.
ALLOWED = frozenset("""
!= !__postfix !~~ !~~* % & && * ** + - ->> / // < <-> << <= <=> <@ = > >= >> @ @> ^ ^@ __between __cast abs acos
acosh add age aggregate ago alias any_value apply approx_count_distinct approx_quantile approx_top_k arbitrary
arg_max arg_max_null arg_max_nulls_last arg_min arg_min_null arg_min_nulls_last argmax argmin array_agg array_aggr
array_aggregate array_append array_apply array_cat array_concat array_contains array_cosine_distance
array_cosine_similarity array_cross_product array_distance array_distinct array_dot_product array_extract
array_filter array_grade_up array_has array_has_all array_has_any array_indexof array_inner_product array_intersect
array_length array_negative_dot_product array_negative_inner_product array_pop_back array_pop_front array_position
array_prepend array_push_back array_push_front array_reduce array_resize array_reverse array_reverse_sort
array_select array_slice array_sort array_to_json array_to_string array_to_string_comma_default array_transform
array_unique array_value array_where array_zip ascii asin asinh assert_true atan atan2 atanh avg bar base64 bin
binom bit_and bit_count bit_length bit_or bit_position bit_xor bitstring bitstring_agg bitstring_byte_comparable
bool_and bool_or can_cast_implicitly cardinality cast_to_type cbrt ceil ceiling century char_length character_length
chr col_description collate_aa collate_af collate_am collate_ar collate_ar_sa collate_as collate_az collate_bal
collate_be collate_bg collate_blo collate_bn collate_bo collate_br collate_bs collate_ca collate_ceb collate_chr
collate_cs collate_cu collate_cy collate_da collate_de collate_de_at collate_dsb collate_dz collate_ee collate_el
collate_en collate_en_us collate_eo collate_es collate_et collate_fa collate_fa_af collate_ff collate_fi collate_fil
collate_fo collate_fr collate_fr_ca collate_fy collate_ga collate_gl collate_gu collate_ha collate_haw collate_he
collate_he_il collate_hi collate_hr collate_hsb collate_hu collate_hy collate_id collate_id_id collate_ig collate_is
collate_it collate_ja collate_ka collate_kk collate_kl collate_km collate_kn collate_ko collate_kok collate_ku
collate_ky collate_lb collate_lij collate_lkt collate_ln collate_lo collate_lt collate_lv collate_mk collate_ml
collate_mn collate_mr collate_ms collate_mt collate_my collate_nb collate_nb_no collate_ne collate_nl collate_nn
collate_no collate_noaccent collate_nso collate_om collate_or collate_pa collate_pa_in collate_pl collate_ps
collate_pt collate_ro collate_ru collate_sa collate_se collate_sgs collate_si collate_sk collate_sl collate_smn
collate_sq collate_sr collate_sr_ba collate_sr_me collate_sr_rs collate_ssy collate_st collate_sv collate_sw
collate_ta collate_te collate_th collate_tk collate_tn collate_to collate_tr collate_ug collate_uk collate_ur
collate_uz collate_vi collate_vo collate_wae collate_wo collate_xh collate_yi collate_yo collate_zh collate_zh_cn
collate_zh_hk collate_zh_mo collate_zh_sg collate_zh_tw collate_zu combine combine_aggr concat concat_ws
constant_or_null contains corr cos cosh cot count count_if count_star countif covar_pop covar_samp create_sort_key
cume_dist current_catalog current_connection_id current_database current_date current_localtime
current_localtimestamp current_query current_query_id current_role current_schema current_schemas current_setting
current_transaction_id current_user currval damerau_levenshtein date_add date_diff date_part date_sub date_trunc
datediff datepart datesub datetrunc day dayname dayofmonth dayofweek dayofyear days_in_month decade decimal_average
decimal_division decode degrees dense_rank divide duckdb_approx_database_count duckdb_available_metrics
duckdb_columns duckdb_connection_count duckdb_constraints duckdb_coordinate_systems duckdb_databases
duckdb_dependencies duckdb_dialects duckdb_eviction_queues duckdb_extension_repositories duckdb_extensions
duckdb_external_file_cache duckdb_external_resource_types duckdb_external_resources duckdb_functions
duckdb_grammar_extensions duckdb_indexes duckdb_keywords duckdb_live_query_metrics duckdb_log_contexts duckdb_logs
duckdb_logs_parsed duckdb_memory duckdb_optimizers duckdb_prepared_statements duckdb_profiling_settings
duckdb_schemas duckdb_secret_type_parameters duckdb_secret_types duckdb_secrets duckdb_sequences duckdb_settings
duckdb_table_sample duckdb_tables duckdb_temporary_files duckdb_triggers duckdb_types duckdb_variables duckdb_views
editdist3 element_at encode ends_with entropy enum_code enum_first enum_last enum_range enum_range_boundary epoch
epoch_ms epoch_ns epoch_us equi_width_bins era error even exp factorial favg fdiv fill filter finalize first
first_value flatten floor fmod format format_bytes format_pg_type format_type formatreadabledecimalsize
formatreadablesize from_base64 from_binary from_hex from_json from_json_strict fsum gamma gcd gen_random_uuid
generate_series generate_subscripts geomean geometric_mean get_bit get_block_size get_current_time
get_current_timestamp get_type getvariable glob grade_up greatest greatest_common_divisor group_concat hamming
has_any_column_privilege has_column_privilege has_database_privilege has_foreign_data_wrapper_privilege
has_function_privilege has_language_privilege has_schema_privilege has_sequence_privilege has_server_privilege
has_table_privilege has_tablespace_privilege hash hex histogram histogram_exact histogram_values
hive_partition_component hour icu_calendar_names icu_collate_aa icu_collate_af icu_collate_am icu_collate_ar
icu_collate_ar_sa icu_collate_as icu_collate_az icu_collate_bal icu_collate_be icu_collate_bg icu_collate_blo
icu_collate_bn icu_collate_bo icu_collate_br icu_collate_bs icu_collate_ca icu_collate_ceb icu_collate_chr
icu_collate_cs icu_collate_cu icu_collate_cy icu_collate_da icu_collate_de icu_collate_de_at icu_collate_dsb
icu_collate_dz icu_collate_ee icu_collate_el icu_collate_en icu_collate_en_us icu_collate_eo icu_collate_es
icu_collate_et icu_collate_fa icu_collate_fa_af icu_collate_ff icu_collate_fi icu_collate_fil icu_collate_fo
icu_collate_fr icu_collate_fr_ca icu_collate_fy icu_collate_ga icu_collate_gl icu_collate_gu icu_collate_ha
icu_collate_haw icu_collate_he icu_collate_he_il icu_collate_hi icu_collate_hr icu_collate_hsb icu_collate_hu
icu_collate_hy icu_collate_id icu_collate_id_id icu_collate_ig icu_collate_is icu_collate_it icu_collate_ja
icu_collate_ka icu_collate_kk icu_collate_kl icu_collate_km icu_collate_kn icu_collate_ko icu_collate_kok
icu_collate_ku icu_collate_ky icu_collate_lb icu_collate_lij icu_collate_lkt icu_collate_ln icu_collate_lo
icu_collate_lt icu_collate_lv icu_collate_mk icu_collate_ml icu_collate_mn icu_collate_mr icu_collate_ms
icu_collate_mt icu_collate_my icu_collate_nb icu_collate_nb_no icu_collate_ne icu_collate_nl icu_collate_nn
icu_collate_no icu_collate_noaccent icu_collate_nso icu_collate_om icu_collate_or icu_collate_pa icu_collate_pa_in
icu_collate_pl icu_collate_ps icu_collate_pt icu_collate_ro icu_collate_ru icu_collate_sa icu_collate_se
icu_collate_sgs icu_collate_si icu_collate_sk icu_collate_sl icu_collate_smn icu_collate_sq icu_collate_sr
icu_collate_sr_ba icu_collate_sr_me icu_collate_sr_rs icu_collate_ssy icu_collate_st icu_collate_sv icu_collate_sw
icu_collate_ta icu_collate_te icu_collate_th icu_collate_tk icu_collate_tn icu_collate_to icu_collate_tr
icu_collate_ug icu_collate_uk icu_collate_ur icu_collate_uz icu_collate_vi icu_collate_vo icu_collate_wae
icu_collate_wo icu_collate_xh icu_collate_yi icu_collate_yo icu_collate_zh icu_collate_zh_cn icu_collate_zh_hk
icu_collate_zh_mo icu_collate_zh_sg icu_collate_zh_tw icu_collate_zu icu_sort_key if ilike_escape in_search_path
index_key inet_client_addr inet_client_port inet_server_addr inet_server_port instr invoke is_histogram_other_bin
isfinite isinf isnan isodow isoyear jaccard jaro_similarity jaro_winkler_similarity json json_array
json_array_length json_contains json_copy_strftime_if_date json_copy_strftime_if_timestamp json_deep_merge json_each
json_exists json_extract json_extract_path json_extract_path_text json_extract_string json_group_array
json_group_object json_group_structure json_insert json_keys json_merge_patch json_merge_patch_diff json_normalize
json_object json_pretty json_quote json_remove json_replace json_set json_strip_nulls json_structure json_transform
json_transform_strict json_tree json_type json_valid json_value julian kahan_sum kurtosis kurtosis_pop lag last
last_day last_value lcase lcm lead least least_common_multiple left left_grapheme len length length_grapheme
levenshtein lgamma like_escape list list_aggr list_aggregate list_any_value list_append list_apply
list_approx_count_distinct list_avg list_bit_and list_bit_or list_bit_xor list_bool_and list_bool_or list_cat
list_concat list_contains list_cosine_distance list_cosine_similarity list_count list_distance list_distinct
list_dot_product list_element list_entropy list_extract list_filter list_first list_grade_up list_has list_has_all
list_has_any list_histogram list_indexof list_inner_product list_intersect list_kurtosis list_kurtosis_pop list_last
list_mad list_max list_median list_min list_mode list_negative_dot_product list_negative_inner_product list_pack
list_position list_prepend list_product list_reduce list_resize list_reverse list_reverse_sort list_select list_sem
list_skewness list_slice list_sort list_stddev_pop list_stddev_samp list_string_agg list_sum list_transform
list_unique list_value list_var_pop list_var_samp list_where list_zip listagg ln log log10 log2 lower lpad ltrim
lttb mad make_date make_time make_timestamp make_timestamp_ms make_timestamp_ns make_timestamptz make_type map
map_concat map_contains map_contains_entry map_contains_value map_entries map_extract map_extract_value
map_from_entries map_keys map_to_pg_oid map_type_id_to_pg_oid map_values max max_by md5 md5_number md5_number_lower
md5_number_upper mean median microsecond millennium millisecond min min_by minute mismatches mod mode month
monthname multiply nanosecond nextafter nfc_normalize normalized_interval not_ilike_escape not_like_escape now
nth_value ntile nullif obj_description octet_length ord overlay parquet_bloom_probe parquet_file_metadata
parquet_full_metadata parquet_kv_metadata parquet_metadata parquet_page_index parquet_scan parquet_schema
parse_dirname parse_dirpath parse_duckdb_log_message parse_filename parse_formatted_bytes parse_path path_join
percent_rank pg_collation_is_visible pg_conf_load_time pg_conversion_is_visible pg_function_is_visible
pg_get_constraintdef pg_get_expr pg_get_viewdef pg_has_role pg_is_other_temp_schema pg_my_temp_schema
pg_opclass_is_visible pg_operator_is_visible pg_opfamily_is_visible pg_postmaster_start_time pg_size_pretty pg_sleep
pg_table_is_visible pg_timezone_names pg_ts_config_is_visible pg_ts_dict_is_visible pg_ts_parser_is_visible
pg_ts_template_is_visible pg_type_is_visible pg_typeof pi position pow power pragma_collations pragma_database_size
pragma_metadata_info pragma_platform pragma_show pragma_storage_info pragma_table_info pragma_user_agent
pragma_version prefix printf product quantile quantile_cont quantile_disc quarter radians random range rank
rank_dense read_blob read_csv read_csv_auto read_json read_json_auto read_json_objects read_json_objects_auto
read_ndjson read_ndjson_auto read_ndjson_objects read_parquet read_single_csv_file read_single_json_file
read_single_parquet_file read_text reduce regexp_escape regexp_extract regexp_extract_all regexp_full_match
regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table regr_avgx regr_avgy regr_count
regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy remap_struct repeat repeat_row replace replace_type
reservoir_quantile reverse right right_grapheme round round_even roundbankers row row_number row_to_json rpad rtrim
second sem seq_scan session_user set_bit setseed sha1 sha256 shobj_description sign signbit sin sinh skewness
sleep_ms sniff_csv split split_part sqrt st_asbinary st_asgeojson st_astext st_aswkb st_aswkt st_crs
st_geomfromgeojson st_geomfromwkb st_intersects_extent st_setcrs starts_with stats stddev stddev_pop stddev_samp
str_split str_split_regex strftime string_agg string_split string_split_regex string_to_array strip_accents strlen
strpos strptime struct_concat struct_contains struct_extract struct_extract_at struct_has struct_indexof
struct_insert struct_keys struct_pack struct_position struct_update struct_values substr substring
substring_grapheme subtract suffix sum sum_no_overflow sumkahan summary switch tan tanh test_all_types
test_vector_types time_bucket timetz_byte_comparable timezone timezone_hour timezone_minute to_aggregate_state
to_base to_base64 to_binary to_centuries to_days to_decades to_hex to_hours to_json to_microseconds to_millennia
to_milliseconds to_minutes to_months to_quarters to_seconds to_timestamp to_weeks to_years today
transaction_timestamp translate trim trunc try_strptime txid_current typeof ucase unbin unhex unicode union_extract
union_tag union_value unnest unpivot_list upper url_decode url_encode user uuid uuid_extract_timestamp
uuid_extract_version uuidv4 uuidv7 var_pop var_samp variance variant_array_length variant_bytes_to_variant
variant_comparator variant_contains variant_exists variant_extract variant_extract_string variant_group_array
variant_group_object variant_keys variant_normalize variant_to_parquet_variant variant_type variant_typeof
vector_type version vertex_extract wavg week weekday weekofyear weighted_avg which_secret xor year yearweek | || ~
~~ ~~* ~~~
""".split()) | {"is distinct from", "is not distinct from"}  # operator names with spaces


def refused_reason(name: str) -> str | None:
    """Why a query may not call the function `name` (any case), or None when it may."""
    name = name.lower()
    if name in REFUSED:
        return REFUSED[name]
    for prefix, reason in _REFUSED_PREFIXES.items():
        if name.startswith(prefix):
            return reason
    return None if name in ALLOWED else "it is not on jbag's reviewed list of reading functions"


def json_objects(node):
    """Every object in a JSON tree (a serialized query from json_serialize_sql), depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from json_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from json_objects(value)


def _option_name(argument: dict) -> str:
    """The name of a named table-function argument (`x := 1` or `x = 1`), else ''."""
    if argument.get("name"):
        return str(argument["name"]).lower()
    expression = argument.get("expression") or {}
    left = expression.get("left") or {}
    if expression.get("type") == "COMPARE_EQUAL" and left.get("class") == "COLUMN_REF":
        names = left.get("column_names") or []
        return str(names[-1]).lower() if len(names) == 1 else ""
    return ""


def refused_call(tree, exists: Callable[[str], bool] = lambda name: True) -> str | None:
    """A one-line refusal for the first call in a serialized query (json_serialize_sql) that may not run, or None.

    A name `exists` says DuckDB does not know is left to DuckDB's binder, whose error suggests the closest names.
    """
    table_functions = {id(node["function"]) for node in json_objects(tree)
                       if node.get("type") == "TABLE_FUNCTION" and isinstance(node.get("function"), dict)}
    for node in json_objects(tree):
        name = node.get("function_name")
        if not isinstance(name, str):
            continue
        kind = "table function" if id(node) in table_functions else "function"
        reason = refused_reason(name)
        if reason and (name.lower() in REFUSED or exists(name)):
            return f"refused: {kind} {name.lower()}() is not allowed ({reason}); jbag sql allows reading functions only"
        if id(node) in table_functions:
            options = sorted(REJECTS_OPTIONS & {_option_name(a) for a in node.get("arguments", [])})
            if options:
                return (f"refused: {name.lower()}({options[0]}) is not allowed (it creates tables in the session); "
                        "drop the rejects options")
    return None
