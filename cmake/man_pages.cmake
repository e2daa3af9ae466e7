# cmake -DCLI=grainscope -DOUT=dir -DPAGES=dir -DSUBCOMMANDS="info;report;..." -DVERSION=x.y.z -P man_pages.cmake
# Writes OUT/grainscope.1 and OUT/grainscope-<sub>.1, each also as .1.gz (gzip -9n, as Debian
# installs man pages). A page is the command's --help — so `man grainscope-waits` says what
# `grainscope waits --help` says — laid out as a man page (SYNOPSIS from its Usage line, OPTIONS
# from its option table, EXIT STATUS from its exit-code line), plus what --help does not say,
# written by hand in PAGES/<page>.man: the NAME summary (its first line, `.\" name: <summary>`)
# and roff sections ENVIRONMENT, EXAMPLES (every page has examples), and text added to
# DESCRIPTION, EXIT STATUS or SEE ALSO.

cmake_minimum_required(VERSION 3.25)  # -P scripts start with old policies: CMP0054 for the if()s
set(gs_semicolon "<gs-semicolon>")  # the text's ';' while it is split into CMake lists
set(gs_hand_sections "DESCRIPTION" "ENVIRONMENT" "EXIT STATUS" "EXAMPLES" "SEE ALSO")

# Roff-safe text: backslashes doubled, a line's leading '.' or "'" escaped.
function(roff_escape text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Option names and commands: also '-' as roff's minus sign, so they can be searched and copied,
# and a break point (\:) after each comma, so a long list of choices can be filled.
function(roff_literal text out)
  roff_escape("${text}" text)
  string(REPLACE "-" "\\-" text "${text}")
  string(REPLACE "," ",\\:" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The hand-written part of `page`: its NAME summary into <out>_summary, and the text of each
# section of gs_hand_sections into <out>_<SECTION> (spaces as _). Anything else is an error.
function(read_hand_page page out)
  set(file ${PAGES}/${page}.man)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${file} is missing: every man page has a NAME summary and EXAMPLES written by hand")
  endif()
  file(READ ${file} text)
  if(NOT text MATCHES "^\\.\\\\\" name: ([^\n]+)\n")
    message(FATAL_ERROR "${file}: the first line must be '.\\\" name: <summary>'")
  endif()
  set(${out}_summary "${CMAKE_MATCH_1}" PARENT_SCOPE)
  # (Not REGEX REPLACE with '^': CMake anchors it again after every match.)
  string(FIND "${text}" "\n" first_end)
  string(SUBSTRING "${text}" ${first_end} -1 text)
  # One list item per section: mark each .SH line, then split there (';', CMake's separator, is
  # held as gs_semicolon until the page is written).
  string(REPLACE ";" "${gs_semicolon}" text "${text}")
  string(REPLACE "\n.SH " "\n;.SH " text "${text}")
  foreach(section IN LISTS text)
    if(section MATCHES "^\n*$")
      continue()
    endif()
    if(NOT section MATCHES "^\\.SH \"?([A-Z ]+)\"?\n(.*)$")
      message(FATAL_ERROR "${file}: text outside a .SH section: ${section}")
    endif()
    set(title "${CMAKE_MATCH_1}")
    set(body "${CMAKE_MATCH_2}")
    if(NOT title IN_LIST gs_hand_sections)
      message(FATAL_ERROR "${file}: section ${title} is not one of ${gs_hand_sections}")
    endif()
    string(REPLACE " " "_" key "${title}")
    set(${out}_${key} "${body}" PARENT_SCOPE)
  endforeach()
endfunction()

# --help's parts: the description (the text before Usage), the Usage line, each "Title:" table
# (Positionals, Options, Subcommands) as .TP entries, the exit codes as .TP entries.
function(parse_help help out)
  string(REPLACE ";" "${gs_semicolon}" help "${help}")
  string(REPLACE "\n" ";" lines "${help}")
  set(part description)
  foreach(line IN LISTS lines)
    if(line MATCHES "^Usage: (.*)$")
      roff_literal("${CMAKE_MATCH_1}" usage)
      set(part usage)
    elseif(line MATCHES "^Exit codes: (.*)\\.$")
      string(REPLACE ", " ";" codes "${CMAKE_MATCH_1}")
      foreach(code IN LISTS codes)
        string(REGEX REPLACE "^([0-9]+) (.*)$" ".TP\n\\\\fB\\1\\\\fR\n\\2\n" code "${code}")
        string(APPEND exit "${code}")
      endforeach()
    elseif(line MATCHES "^([A-Z][a-z]+):$")
      set(part "${CMAKE_MATCH_1}")
      string(APPEND tables ".SS ${CMAKE_MATCH_1}\n")
    elseif(line MATCHES "^  ([^ ]+( [^ ]+)*)(   *([^ ].*))?$" AND NOT part STREQUAL "description")
      # A term, and its text on the same line or (a long term) on the next, indented.
      roff_literal("${CMAKE_MATCH_1}" term)
      string(APPEND tables ".TP\n\\fB${term}\\fR\n")
      if(CMAKE_MATCH_4)
        roff_escape("${CMAKE_MATCH_4}" what)
        string(APPEND tables "${what}\n")
      endif()
    elseif(line MATCHES "^      +([^ ].*)$" AND NOT part STREQUAL "description")
      roff_escape("${CMAKE_MATCH_1}" what)
      string(APPEND tables "${what}\n")
    elseif(part STREQUAL "description" AND NOT line STREQUAL "")
      roff_escape("${line}" line)
      string(APPEND description "${line}\n.PP\n")
    elseif(NOT line STREQUAL "")
      message(FATAL_ERROR "--help line not understood: '${line}'")
    endif()
  endforeach()
  string(REGEX REPLACE "\n\\.PP\n$" "\n" description "${description}")
  foreach(v description usage tables exit)
    set(${out}_${v} "${${v}}" PARENT_SCOPE)
  endforeach()
endfunction()

function(write_page page help see_also)
  read_hand_page(${page} hand)
  parse_help("${help}" h)
  if(NOT h_usage OR NOT h_exit OR NOT hand_EXAMPLES)
    message(FATAL_ERROR "${page}: no Usage line or exit codes in --help, or no EXAMPLES in ${page}.man")
  endif()
  string(TOUPPER "${page}" upper)
  string(REPLACE "-" "\\-" name "${page}")
  set(roff ".TH ${upper} 1 \"\" \"grainscope ${VERSION}\" \"User Commands\"\n"
           ".SH NAME\n${name} \\- ${hand_summary}\n"
           ".SH SYNOPSIS\n.B ${h_usage}\n"
           ".SH DESCRIPTION\n${h_description}")
  if(hand_DESCRIPTION)
    list(APPEND roff ".PP\n${hand_DESCRIPTION}")
  endif()
  list(APPEND roff
           ".SH OPTIONS\n${h_tables}")
  if(hand_ENVIRONMENT)
    list(APPEND roff ".SH ENVIRONMENT\n${hand_ENVIRONMENT}")
  endif()
  if(hand_EXIT_STATUS)
    set(hand_EXIT_STATUS ".PP\n${hand_EXIT_STATUS}")
  endif()
  list(APPEND roff ".SH EXIT STATUS\n${h_exit}${hand_EXIT_STATUS}"
                   ".SH EXAMPLES\n${hand_EXAMPLES}"
                   ".SH SEE ALSO\n${see_also}${hand_SEE_ALSO}"
                   "The documentation in /usr/share/doc/grainscope (docs/ of the sources).\n")
  string(JOIN "" roff ${roff})
  string(REPLACE "${gs_semicolon}" ";" roff "${roff}")
  file(WRITE ${OUT}/${page}.1 "${roff}")
  execute_process(COMMAND gzip -9nkf ${OUT}/${page}.1 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9nkf ${OUT}/${page}.1 failed (${rc})")
  endif()
endfunction()

function(help_of out)
  execute_process(COMMAND ${CLI} ${ARGN} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${ARGN} --help failed (${rc})")
  endif()
  set(${out} "${help}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${OUT})
set(all_pages "")
foreach(sub ${SUBCOMMANDS})
  list(APPEND all_pages "\\fBgrainscope\\-${sub}\\fR(1)")
endforeach()
list(JOIN all_pages ",\n" all_pages)
help_of(help)
write_page(grainscope "${help}" "${all_pages}.\n.PP\n")
foreach(sub ${SUBCOMMANDS})
  help_of(help ${sub})
  write_page(grainscope-${sub} "${help}" "\\fBgrainscope\\fR(1) (the environment of every command).\n.PP\n")
endforeach()
